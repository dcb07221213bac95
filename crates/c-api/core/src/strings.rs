//! `iree_string_view_t` and byte spans, and the string-view functions the
//! library exports.

use std::ffi::c_char;

use crate::boundary;

/// `iree_host_size_t` (`size_t`).
#[allow(non_camel_case_types)]
pub type iree_host_size_t = usize;

/// `iree_device_size_t`.
#[allow(non_camel_case_types)]
pub type iree_device_size_t = u64;

/// `iree_string_view_t`: a borrowed, not necessarily NUL-terminated string.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct iree_string_view_t {
    /// The first byte, or NULL.
    pub data: *const c_char,
    /// The length in bytes.
    pub size: iree_host_size_t,
}

impl iree_string_view_t {
    /// The empty view.
    pub const fn empty() -> iree_string_view_t {
        iree_string_view_t {
            data: std::ptr::null(),
            size: 0,
        }
    }

    /// A view of `text` (valid while `text` is). Infallible and borrowing,
    /// so not `FromStr`.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> iree_string_view_t {
        iree_string_view_t {
            data: text.as_ptr().cast(),
            size: text.len(),
        }
    }

    /// A view of `size` bytes at `data`.
    pub fn from_raw(data: *const c_char, size: iree_host_size_t) -> iree_string_view_t {
        iree_string_view_t { data, size }
    }

    /// The bytes.
    ///
    /// # Safety
    /// `data` is NULL or valid for `size` bytes for `'a`.
    pub unsafe fn as_bytes<'a>(&self) -> &'a [u8] {
        if self.data.is_null() || self.size == 0 {
            &[]
        } else {
            // SAFETY: per the contract.
            unsafe { std::slice::from_raw_parts(self.data.cast(), self.size) }
        }
    }

    /// The text, with invalid UTF-8 replaced.
    ///
    /// # Safety
    /// As [`iree_string_view_t::as_bytes`].
    pub unsafe fn to_string_lossy(&self) -> String {
        // SAFETY: forwarded contract.
        String::from_utf8_lossy(unsafe { self.as_bytes() }).into_owned()
    }

    /// The text when it is UTF-8 (names, which are ASCII in practice).
    ///
    /// # Safety
    /// As [`iree_string_view_t::as_bytes`].
    pub unsafe fn as_str<'a>(&self) -> Option<&'a str> {
        // SAFETY: forwarded contract.
        std::str::from_utf8(unsafe { self.as_bytes() }).ok()
    }
}

/// `iree_byte_span_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct iree_byte_span_t {
    /// The first byte.
    pub data: *mut u8,
    /// The length in bytes.
    pub data_length: iree_host_size_t,
}

/// `iree_const_byte_span_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct iree_const_byte_span_t {
    /// The first byte.
    pub data: *const u8,
    /// The length in bytes.
    pub data_length: iree_host_size_t,
}

impl iree_const_byte_span_t {
    /// The bytes.
    ///
    /// # Safety
    /// `data` is NULL or valid for `data_length` bytes for `'a`.
    pub unsafe fn as_slice<'a>(&self) -> &'a [u8] {
        if self.data.is_null() || self.data_length == 0 {
            &[]
        } else {
            // SAFETY: per the contract.
            unsafe { std::slice::from_raw_parts(self.data, self.data_length) }
        }
    }
}

/// `iree_string_pair_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct iree_string_pair_t {
    /// The key (`first`).
    pub key: iree_string_view_t,
    /// The value (`second`).
    pub value: iree_string_view_t,
}

/// `iree_string_view_equal`.
///
/// # Safety
/// Both views are valid.
#[no_mangle]
pub unsafe extern "C" fn iree_string_view_equal(
    lhs: iree_string_view_t,
    rhs: iree_string_view_t,
) -> bool {
    boundary::value("iree_string_view_equal", false, || {
        // SAFETY: per the contract.
        unsafe { lhs.as_bytes() == rhs.as_bytes() }
    })
}

/// `iree_string_view_compare`: lexicographic, as `memcmp` then length.
///
/// # Safety
/// Both views are valid.
#[no_mangle]
pub unsafe extern "C" fn iree_string_view_compare(
    lhs: iree_string_view_t,
    rhs: iree_string_view_t,
) -> i32 {
    boundary::value("iree_string_view_compare", 0, || {
        // SAFETY: per the contract.
        match unsafe { lhs.as_bytes().cmp(rhs.as_bytes()) } {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        }
    })
}

/// `iree_string_view_starts_with`.
///
/// # Safety
/// Both views are valid.
#[no_mangle]
pub unsafe extern "C" fn iree_string_view_starts_with(
    value: iree_string_view_t,
    prefix: iree_string_view_t,
) -> bool {
    boundary::value("iree_string_view_starts_with", false, || {
        // SAFETY: per the contract.
        unsafe { !value.data.is_null() && value.as_bytes().starts_with(prefix.as_bytes()) }
    })
}

/// `iree_string_view_ends_with`.
///
/// # Safety
/// Both views are valid.
#[no_mangle]
pub unsafe extern "C" fn iree_string_view_ends_with(
    value: iree_string_view_t,
    suffix: iree_string_view_t,
) -> bool {
    boundary::value("iree_string_view_ends_with", false, || {
        // SAFETY: per the contract.
        unsafe { !value.data.is_null() && value.as_bytes().ends_with(suffix.as_bytes()) }
    })
}

/// `iree_string_view_find_char`: the index of `c` at or after `pos`, or
/// `IREE_STRING_VIEW_NPOS`.
///
/// # Safety
/// `value` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_string_view_find_char(
    value: iree_string_view_t,
    c: c_char,
    pos: iree_host_size_t,
) -> iree_host_size_t {
    boundary::value("iree_string_view_find_char", 0, || {
        // SAFETY: per the contract.
        let bytes = unsafe { value.as_bytes() };
        bytes
            .get(pos..)
            .and_then(|tail| tail.iter().position(|&b| b == c as u8))
            .map_or(usize::MAX, |i| i + pos)
    })
}

/// `iree_string_view_substr`: up to `n` bytes from `pos` (clamped).
///
/// # Safety
/// `value` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_string_view_substr(
    value: iree_string_view_t,
    pos: iree_host_size_t,
    n: iree_host_size_t,
) -> iree_string_view_t {
    boundary::value(
        "iree_string_view_substr",
        iree_string_view_t::empty(),
        || {
            let pos = pos.min(value.size);
            let n = n.min(value.size - pos);
            // SAFETY: `pos <= size`, inside (or one past) the view.
            iree_string_view_t::from_raw(unsafe { value.data.add(pos) }, n)
        },
    )
}

/// `iree_string_view_split`: splits at the first `split_char`; returns its
/// index, or -1 (then `lhs` is the whole view and `rhs` empty).
///
/// # Safety
/// `value` is valid; the out pointers are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn iree_string_view_split(
    value: iree_string_view_t,
    split_char: c_char,
    out_lhs: *mut iree_string_view_t,
    out_rhs: *mut iree_string_view_t,
) -> isize {
    boundary::value("iree_string_view_split", -1, || {
        // SAFETY: per the contract.
        let index = unsafe { iree_string_view_find_char(value, split_char, 0) };
        let (lhs, rhs, result) = if index == usize::MAX {
            (value, iree_string_view_t::empty(), -1)
        } else {
            // SAFETY: `index < size`.
            let rest = unsafe { value.data.add(index + 1) };
            (
                iree_string_view_t::from_raw(value.data, index),
                iree_string_view_t::from_raw(rest, value.size - index - 1),
                index as isize,
            )
        };
        // SAFETY: the out pointers are NULL or valid per the contract.
        unsafe {
            if let Some(out) = out_lhs.as_mut() {
                *out = lhs;
            }
            if let Some(out) = out_rhs.as_mut() {
                *out = rhs;
            }
        }
        result
    })
}

/// `iree_string_view_append_to_buffer`: copies `source_value` to `buffer`
/// and points `target_value` at the copy; returns the bytes copied.
///
/// # Safety
/// `buffer` holds `source_value.size` bytes; the pointers are valid.
#[no_mangle]
pub unsafe extern "C" fn iree_string_view_append_to_buffer(
    source_value: iree_string_view_t,
    target_value: *mut iree_string_view_t,
    buffer: *mut c_char,
) -> iree_host_size_t {
    boundary::value("iree_string_view_append_to_buffer", 0, || {
        // SAFETY: per the contract.
        unsafe {
            let bytes = source_value.as_bytes();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer.cast::<u8>(), bytes.len());
            if let Some(target) = target_value.as_mut() {
                *target = iree_string_view_t::from_raw(buffer, bytes.len());
            }
            bytes.len()
        }
    })
}
