//! The `hal.buffer_view` host extension for dynamic modules: how a module
//! in a shared library (see `iree-vm-dynamic`) reads the buffer views it is
//! given and makes new ones, without any HAL type crossing the ABI.
//!
//! The host side ([`BufferViewHost`]) is offered by tools that load dynamic
//! modules; the library side ([`HostBufferViews`], [`HostBufferView`]) is
//! what a module author uses. The table ([`BufferViewApi`]) is version
//! [`BUFFER_VIEW_EXTENSION_VERSION`] of extension
//! [`BUFFER_VIEW_EXTENSION`]; it follows the rules of
//! [`iree_vm_dynamic::abi`] (status codes and sinks, host handles).

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use iree_base::{Result, Status, StatusCode};
use iree_hal::{
    Allocator, BufferParams, BufferUsage, BufferView, ElementType, EncodingType, HeapAllocator,
    MemoryType,
};
use iree_vm::Ref;
use iree_vm_dynamic::abi::StatusSink;
use iree_vm_dynamic::boundary::{call_with_status, guard};
use iree_vm_dynamic::host::{handle_from_ref, ref_from_handle};
use iree_vm_dynamic::{Extension, Host, HostRef, HostRefType, TypedHostRef};
use parking_lot::Mutex;

use crate::{buffer_view_type, HalBufferView};

/// The extension's name.
pub const BUFFER_VIEW_EXTENSION: &str = "hal.buffer_view";

/// The version of [`BufferViewApi`].
pub const BUFFER_VIEW_EXTENSION_VERSION: u32 = 1;

/// The extension's function table. `view` arguments are borrowed host
/// handles of `hal.buffer_view` objects (anything else fails with
/// INVALID_ARGUMENT); element types are upstream's
/// `iree_hal_element_type_t` values.
#[repr(C)]
pub struct BufferViewApi {
    /// The host's context, passed to every function.
    pub context: *mut c_void,
    /// Writes the rank to `*out_rank` and, when `capacity` is at least the
    /// rank, the dimensions to `dims` (OUT_OF_RANGE otherwise).
    pub shape: unsafe extern "C" fn(
        context: *mut c_void,
        view: *mut c_void,
        dims: *mut u64,
        capacity: usize,
        out_rank: *mut usize,
        status: *const StatusSink,
    ) -> u32,
    /// Writes the element type to `*out_element_type`.
    pub element_type: unsafe extern "C" fn(
        context: *mut c_void,
        view: *mut c_void,
        out_element_type: *mut u32,
        status: *const StatusSink,
    ) -> u32,
    /// Writes the byte length of the viewed contents to `*out_length`.
    pub byte_length: unsafe extern "C" fn(
        context: *mut c_void,
        view: *mut c_void,
        out_length: *mut u64,
        status: *const StatusSink,
    ) -> u32,
    /// Copies `length` bytes of the contents from `offset` to `data`.
    pub read: unsafe extern "C" fn(
        context: *mut c_void,
        view: *mut c_void,
        offset: u64,
        data: *mut u8,
        length: usize,
        status: *const StatusSink,
    ) -> u32,
    /// Makes a new dense row-major view of `shape` (`rank` dimensions) and
    /// `element_type` holding the `length` bytes at `data` (exactly the
    /// view's size), allocated by the host's device allocator; writes an
    /// owned handle to `*out_view`.
    pub create: unsafe extern "C" fn(
        context: *mut c_void,
        shape: *const u64,
        rank: usize,
        element_type: u32,
        data: *const u8,
        length: usize,
        out_view: *mut *mut c_void,
        status: *const StatusSink,
    ) -> u32,
}

/// The host side: serves [`BufferViewApi`], allocating new views from the
/// device allocator set with [`BufferViewHost::set_allocator`] (host heap
/// memory until one is set, as for a run without a device).
pub struct BufferViewHost {
    allocator: Mutex<Option<Arc<dyn Allocator>>>,
    table: BufferViewApi,
}

// SAFETY: `table` holds function pointers and a pointer to this object,
// whose state is behind a mutex.
unsafe impl Send for BufferViewHost {}
// SAFETY: as for Send.
unsafe impl Sync for BufferViewHost {}

impl BufferViewHost {
    /// A host extension with no device allocator yet.
    pub fn new() -> Arc<BufferViewHost> {
        Arc::new_cyclic(|this: &Weak<BufferViewHost>| BufferViewHost {
            allocator: Mutex::new(None),
            table: BufferViewApi {
                context: this.as_ptr() as *mut c_void,
                shape: view_shape,
                element_type: view_element_type,
                byte_length: view_byte_length,
                read: view_read,
                create: view_create,
            },
        })
    }

    /// Allocates views made from now on with `allocator` (the device's).
    pub fn set_allocator(&self, allocator: Arc<dyn Allocator>) {
        *self.allocator.lock() = Some(allocator);
    }

    /// The extension to offer a dynamic module.
    pub fn extension(self: &Arc<Self>) -> Extension {
        let table = &self.table as *const BufferViewApi as *const c_void;
        // SAFETY: `table` lives inside the `Arc` the extension keeps, and
        // its functions are thread-safe and catch panics.
        unsafe {
            Extension::new(
                BUFFER_VIEW_EXTENSION,
                BUFFER_VIEW_EXTENSION_VERSION,
                table,
                self.clone(),
            )
        }
    }

    fn allocator(&self) -> Arc<dyn Allocator> {
        match &*self.allocator.lock() {
            Some(allocator) => allocator.clone(),
            None => HeapAllocator::new(),
        }
    }
}

/// The buffer view behind a borrowed handle.
///
/// # Safety
/// `view` must be null or a live host handle.
unsafe fn view_of<'a>(view: *mut c_void) -> Result<&'a BufferView> {
    // SAFETY: forwarded from the caller.
    match unsafe { ref_from_handle(view) } {
        Some(r) => Ok(&r.checked::<HalBufferView>(buffer_view_type())?.0),
        None => Err(Status::new(
            StatusCode::InvalidArgument,
            "view: a non-null hal.buffer_view is required",
        )),
    }
}

/// Writes `value` to a required output pointer.
///
/// # Safety
/// `out` must be null or writable.
unsafe fn write_out<T>(out: *mut T, value: T) -> Result<()> {
    if out.is_null() {
        return Err(Status::new(StatusCode::InvalidArgument, "null output"));
    }
    // SAFETY: non-null, and writable by the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

unsafe extern "C" fn view_shape(
    _context: *mut c_void,
    view: *mut c_void,
    dims: *mut u64,
    capacity: usize,
    out_rank: *mut usize,
    status: *const StatusSink,
) -> u32 {
    let body = || {
        // SAFETY: the ABI requires a live handle.
        let view = unsafe { view_of(view) }?;
        let shape = view.shape();
        // SAFETY: the ABI requires a writable output.
        unsafe { write_out(out_rank, shape.len()) }?;
        if capacity < shape.len() {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "rank {} exceeds the {capacity} dimensions given",
                    shape.len()
                ),
            ));
        }
        for (i, &d) in shape.iter().enumerate() {
            // SAFETY: `dims` holds `capacity` >= rank entries.
            unsafe { dims.add(i).write(d as u64) };
        }
        Ok(())
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

unsafe extern "C" fn view_element_type(
    _context: *mut c_void,
    view: *mut c_void,
    out_element_type: *mut u32,
    status: *const StatusSink,
) -> u32 {
    let body = || {
        // SAFETY: the ABI requires a live handle.
        let view = unsafe { view_of(view) }?;
        // SAFETY: the ABI requires a writable output.
        unsafe { write_out(out_element_type, view.element_type().0) }
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

unsafe extern "C" fn view_byte_length(
    _context: *mut c_void,
    view: *mut c_void,
    out_length: *mut u64,
    status: *const StatusSink,
) -> u32 {
    let body = || {
        // SAFETY: the ABI requires a live handle.
        let view = unsafe { view_of(view) }?;
        // SAFETY: the ABI requires a writable output.
        unsafe { write_out(out_length, view.buffer().byte_length()) }
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

unsafe extern "C" fn view_read(
    _context: *mut c_void,
    view: *mut c_void,
    offset: u64,
    data: *mut u8,
    length: usize,
    status: *const StatusSink,
) -> u32 {
    let body = || {
        // SAFETY: the ABI requires a live handle.
        let view = unsafe { view_of(view) }?;
        if length == 0 {
            return Ok(());
        }
        if data.is_null() {
            return Err(Status::new(StatusCode::InvalidArgument, "null data"));
        }
        // SAFETY: the caller passes `length` writable bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(data, length) };
        view.buffer().read(offset, out)
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

#[allow(clippy::too_many_arguments, reason = "an ABI function")]
unsafe extern "C" fn view_create(
    context: *mut c_void,
    shape: *const u64,
    rank: usize,
    element_type: u32,
    data: *const u8,
    length: usize,
    out_view: *mut *mut c_void,
    status: *const StatusSink,
) -> u32 {
    let body = || {
        // SAFETY: `context` is the `BufferViewHost` owning this table, kept
        // alive by the extension.
        let host = unsafe { &*(context as *const BufferViewHost) };
        let shape: Vec<usize> = if rank == 0 {
            Vec::new()
        } else if shape.is_null() {
            return Err(Status::new(StatusCode::InvalidArgument, "null shape"));
        } else {
            // SAFETY: the caller passes `rank` dimensions.
            let dims = unsafe { std::slice::from_raw_parts(shape, rank) };
            dims.iter()
                .map(|&d| {
                    usize::try_from(d).map_err(|_| {
                        Status::new(StatusCode::OutOfRange, format!("dimension {d} too large"))
                    })
                })
                .collect::<Result<_>>()?
        };
        let element_type = ElementType(element_type);
        let size =
            iree_hal::compute_view_size(&shape, element_type, EncodingType::DENSE_ROW_MAJOR)?;
        if size != length {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("a {shape:?} view holds {size} bytes but {length} were given"),
            ));
        }
        let bytes: &[u8] = if length == 0 {
            &[]
        } else if data.is_null() {
            return Err(Status::new(StatusCode::InvalidArgument, "null data"));
        } else {
            // SAFETY: the caller passes `length` readable bytes.
            unsafe { std::slice::from_raw_parts(data, length) }
        };
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DEFAULT,
            ..Default::default()
        };
        let buffer = host.allocator().allocate_buffer(params, size as u64)?;
        buffer.write(0, bytes)?;
        let view = BufferView::new(buffer, shape, element_type, EncodingType::DENSE_ROW_MAJOR)?;
        // SAFETY: the ABI requires a writable output.
        unsafe { write_out(out_view, handle_from_ref(Ref::new(HalBufferView(view)))) }
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

/// Names the host `hal.buffer_view` type for [`TypedHostRef`].
pub struct BufferViewType;

impl HostRefType for BufferViewType {
    const NAME: &'static str = "hal.buffer_view";
}

/// A host buffer view held by a dynamic module: a typed native-function
/// argument or result (cconv `r`, checked to be a `hal.buffer_view`).
pub type HostBufferView = TypedHostRef<BufferViewType>;

/// The library side: the host's buffer-view functions, looked up once from
/// the [`Host`] a module factory is given and kept in the module state.
#[derive(Clone, Copy)]
pub struct HostBufferViews {
    host: Host,
    table: NonNull<BufferViewApi>,
}

// SAFETY: the table is immutable and its functions thread-safe (ABI).
unsafe impl Send for HostBufferViews {}
// SAFETY: as for Send.
unsafe impl Sync for HostBufferViews {}

impl HostBufferViews {
    /// Looks the extension up (NOT_FOUND when the host offers none).
    pub fn lookup(host: Host) -> Result<HostBufferViews> {
        let table = host
            .extension(BUFFER_VIEW_EXTENSION, BUFFER_VIEW_EXTENSION_VERSION)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!(
                        "the host offers no '{BUFFER_VIEW_EXTENSION}' extension version \
                         {BUFFER_VIEW_EXTENSION_VERSION}"
                    ),
                )
            })?;
        Ok(HostBufferViews {
            host,
            table: table.cast(),
        })
    }

    fn api(&self) -> &BufferViewApi {
        // SAFETY: the host keeps the table alive while the module lives
        // (see `Host`).
        unsafe { self.table.as_ref() }
    }

    /// The dimensions of `view`, outermost first.
    pub fn shape(&self, view: &HostBufferView) -> Result<Vec<usize>> {
        let api = self.api();
        let mut dims = [0u64; 16];
        let mut rank = 0usize;
        let first = call_with_status(
            || "hal.buffer_view shape".to_string(),
            // SAFETY: a host function called with valid pointers.
            |status| unsafe {
                (api.shape)(
                    api.context,
                    view.host_ref().handle(),
                    dims.as_mut_ptr(),
                    dims.len(),
                    &mut rank,
                    status,
                )
            },
        );
        let dims: Vec<u64> = match first {
            Ok(()) => dims[..rank].to_vec(),
            Err(e) if rank <= dims.len() => return Err(e),
            Err(_) => {
                let mut dims = vec![0u64; rank];
                call_with_status(
                    || "hal.buffer_view shape".to_string(),
                    // SAFETY: as above, with room for every dimension.
                    |status| unsafe {
                        (api.shape)(
                            api.context,
                            view.host_ref().handle(),
                            dims.as_mut_ptr(),
                            dims.len(),
                            &mut rank,
                            status,
                        )
                    },
                )?;
                dims
            }
        };
        Ok(dims.into_iter().map(|d| d as usize).collect())
    }

    /// The element type of `view`.
    pub fn element_type(&self, view: &HostBufferView) -> Result<ElementType> {
        let api = self.api();
        let mut element_type = 0u32;
        call_with_status(
            || "hal.buffer_view element_type".to_string(),
            // SAFETY: a host function called with valid pointers.
            |status| unsafe {
                (api.element_type)(
                    api.context,
                    view.host_ref().handle(),
                    &mut element_type,
                    status,
                )
            },
        )?;
        Ok(ElementType(element_type))
    }

    /// A copy of the viewed contents.
    pub fn read(&self, view: &HostBufferView) -> Result<Vec<u8>> {
        let api = self.api();
        let mut length = 0u64;
        call_with_status(
            || "hal.buffer_view byte_length".to_string(),
            // SAFETY: a host function called with valid pointers.
            |status| unsafe {
                (api.byte_length)(api.context, view.host_ref().handle(), &mut length, status)
            },
        )?;
        let length = usize::try_from(length)
            .map_err(|_| Status::new(StatusCode::OutOfRange, "view too large for this process"))?;
        let mut bytes = vec![0u8; length];
        call_with_status(
            || "hal.buffer_view read".to_string(),
            // SAFETY: a host function called with `length` writable bytes.
            |status| unsafe {
                (api.read)(
                    api.context,
                    view.host_ref().handle(),
                    0,
                    bytes.as_mut_ptr(),
                    bytes.len(),
                    status,
                )
            },
        )?;
        Ok(bytes)
    }

    /// A new dense view of `shape` x `element_type` holding `data`
    /// (exactly the view's size), on the host's device.
    pub fn create(
        &self,
        shape: &[usize],
        element_type: ElementType,
        data: &[u8],
    ) -> Result<HostBufferView> {
        let api = self.api();
        let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let mut handle: *mut c_void = std::ptr::null_mut();
        call_with_status(
            || "hal.buffer_view create".to_string(),
            // SAFETY: a host function called with valid pointers.
            |status| unsafe {
                (api.create)(
                    api.context,
                    dims.as_ptr(),
                    dims.len(),
                    element_type.0,
                    data.as_ptr(),
                    data.len(),
                    &mut handle,
                    status,
                )
            },
        )?;
        // SAFETY: the host returned an owned handle.
        let host_ref = unsafe { HostRef::from_handle(self.host, handle) }.ok_or_else(|| {
            Status::new(StatusCode::Internal, "hal.buffer_view create returned null")
        })?;
        HostBufferView::new(Ref::new(host_ref))
    }
}
