//! The native calling convention's byte layout: how the values of a cconv
//! fragment (`iIr`, `CrD`) sit in an `iree_vm_function_call_t`'s argument
//! and result buffers, as upstream lays them out: i32 and f32 take 4 bytes
//! where they fall, i64, f64 and refs (`iree_vm_ref_t`, 16 bytes) are
//! 8-aligned, a variadic span is an i32 count followed (after aligning to
//! its widest member) by the tuples, and the whole is padded to its widest
//! member.
//!
//! Refs in these buffers are owned: the caller fills the arguments with
//! counted refs and releases whatever the callee leaves there; the callee
//! fills the zeroed results with counted refs that the caller takes.

use iree_base::{Result, Status, StatusCode};
use iree_vm::{CconvType, Value};

use crate::refs::{iree_vm_ref_t, move_to_vm_ref, release_object, retain_c_ref};

/// The alignment of one element type.
fn alignment(ty: &CconvType) -> usize {
    match ty {
        CconvType::I32 | CconvType::F32 => 4,
        CconvType::I64 | CconvType::F64 | CconvType::Ref => 8,
        CconvType::Variadic(tuple) => tuple.iter().map(alignment).max().unwrap_or(4).max(4),
    }
}

fn align(offset: usize, alignment: usize) -> usize {
    (offset + alignment - 1) & !(alignment - 1)
}

/// One scalar slot of a laid-out fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// An i32 at the offset.
    I32(usize),
    /// An i64 at the offset.
    I64(usize),
    /// An f32 at the offset.
    F32(usize),
    /// An f64 at the offset.
    F64(usize),
    /// An `iree_vm_ref_t` at the offset.
    Ref(usize),
}

/// Walks `types`, calling `visit` per slot in flattened order (a span's
/// count is an i32 slot, whose value `span_count` gives from its offset);
/// returns the total size.
fn walk(
    types: &[CconvType],
    span_count: &mut dyn FnMut(usize) -> Result<usize>,
    visit: &mut dyn FnMut(Slot) -> Result<()>,
) -> Result<usize> {
    fn scalar(ty: &CconvType, offset: &mut usize) -> Result<Slot> {
        let at = align(*offset, alignment(ty));
        let (slot, size) = match ty {
            CconvType::I32 => (Slot::I32(at), 4),
            CconvType::F32 => (Slot::F32(at), 4),
            CconvType::I64 => (Slot::I64(at), 8),
            CconvType::F64 => (Slot::F64(at), 8),
            CconvType::Ref => (Slot::Ref(at), 16),
            CconvType::Variadic(_) => {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    "nested variadic spans are not supported",
                ))
            }
        };
        *offset = at + size;
        Ok(slot)
    }
    let mut offset = 0usize;
    let mut max_alignment = 4usize;
    for ty in types {
        max_alignment = max_alignment.max(alignment(ty));
        match ty {
            CconvType::Variadic(tuple) => {
                let count = span_count(offset)?;
                visit(Slot::I32(offset))?;
                offset += 4;
                if count == 0 {
                    continue;
                }
                offset = align(offset, alignment(ty));
                for _ in 0..count {
                    for member in tuple {
                        visit(scalar(member, &mut offset)?)?;
                    }
                }
            }
            _ => visit(scalar(ty, &mut offset)?)?,
        }
    }
    Ok(align(offset, max_alignment))
}

/// The flattened values' span counts, in order: each variadic span's count
/// is the i32 value at its position.
fn span_counts(types: &[CconvType], values: &[Value]) -> Result<Vec<usize>> {
    let mut counts = Vec::new();
    let mut index = 0usize;
    for ty in types {
        match ty {
            CconvType::Variadic(tuple) => {
                let count = match values.get(index) {
                    Some(Value::I32(n)) if *n >= 0 => *n as usize,
                    _ => {
                        return Err(Status::new(
                            StatusCode::InvalidArgument,
                            "variadic span without a count",
                        ))
                    }
                };
                counts.push(count);
                index += 1 + count * tuple.len();
            }
            _ => index += 1,
        }
    }
    Ok(counts)
}

/// The size of a fragment whose spans have `counts` elements, in order.
pub(crate) fn fragment_size(types: &[CconvType], counts: &[usize]) -> Result<usize> {
    let mut next = counts.iter();
    walk(
        types,
        &mut |_| {
            next.next().copied().ok_or_else(|| {
                Status::new(
                    StatusCode::InvalidArgument,
                    "variadic argument found but segment size list is missing/underflowed",
                )
            })
        },
        &mut |_| Ok(()),
    )
}

/// The span count stored at `at`, bounds-checked.
fn read_count(bytes: &[u8], at: usize) -> Result<usize> {
    let raw = bytes
        .get(at..at + 4)
        .map(|b| i32::from_ne_bytes(b.try_into().expect("4 bytes")))
        .ok_or_else(|| too_small(bytes.len()))?;
    usize::try_from(raw)
        .map_err(|_| Status::new(StatusCode::InvalidArgument, "negative variadic span count"))
}

#[cold]
fn too_small(length: usize) -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        format!("the {length}-byte buffer is too small for the calling convention"),
    )
}

/// Writes `values` (flattened, spans as a count then tuples) into `out`,
/// zeroed and laid out for `types`. Refs get counts of their own, owned by
/// the buffer (release them with [`release_refs`]).
pub(crate) fn pack(types: &[CconvType], values: &[Value], out: &mut Vec<u8>) -> Result<()> {
    let counts = span_counts(types, values)?;
    let size = fragment_size(types, &counts)?;
    out.clear();
    out.resize(size, 0);
    let mut next_count = counts.iter();
    let mut next = values.iter();
    let mut written: Vec<usize> = Vec::new();
    let result = walk(
        types,
        &mut |_| Ok(next_count.next().copied().unwrap_or(0)),
        &mut |slot| {
            let value = next.next().ok_or_else(|| {
                Status::new(StatusCode::InvalidArgument, "too few values for the cconv")
            })?;
            match (slot, value) {
                (Slot::I32(at), Value::I32(v)) => out[at..at + 4].copy_from_slice(&v.to_ne_bytes()),
                (Slot::I64(at), Value::I64(v)) => out[at..at + 8].copy_from_slice(&v.to_ne_bytes()),
                (Slot::F32(at), Value::F32(v)) => out[at..at + 4].copy_from_slice(&v.to_ne_bytes()),
                (Slot::F64(at), Value::F64(v)) => out[at..at + 8].copy_from_slice(&v.to_ne_bytes()),
                (Slot::Ref(at), Value::Ref(r)) => {
                    let c = match r {
                        Some(r) => retain_c_ref(r)?,
                        None => iree_vm_ref_t::NULL,
                    };
                    write_ref(out, at, c);
                    written.push(at);
                }
                (slot, value) => {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        format!("value {value:?} does not match the cconv slot {slot:?}"),
                    ))
                }
            }
            Ok(())
        },
    );
    if let Err(error) = result {
        for at in written {
            // SAFETY: each slot holds a ref counted above.
            unsafe { release_ref_at(out, at) };
        }
        out.clear();
        return Err(error);
    }
    Ok(())
}

/// The size of the values in `bytes` laid out for `types` (span counts read
/// from the buffer).
pub(crate) fn packed_size(types: &[CconvType], bytes: &[u8]) -> Result<usize> {
    walk(types, &mut |at| read_count(bytes, at), &mut |_| Ok(()))
}

/// Reads the values of a buffer laid out for `types` (spans' counts read
/// from the buffer). Refs are taken over: their slots are zeroed.
///
/// # Safety
/// The ref slots of `bytes` hold null or live counted refs.
pub(crate) unsafe fn unpack(types: &[CconvType], bytes: &mut [u8]) -> Result<Vec<Value>> {
    let size = packed_size(types, bytes)?;
    if size > bytes.len() {
        return Err(too_small(bytes.len()));
    }
    let mut values = Vec::new();
    let shared: &[u8] = bytes;
    let mut refs = Vec::new();
    walk(types, &mut |at| read_count(shared, at), &mut |slot| {
        let read4 = |at: usize| -> [u8; 4] { shared[at..at + 4].try_into().expect("4 bytes") };
        let read8 = |at: usize| -> [u8; 8] { shared[at..at + 8].try_into().expect("8 bytes") };
        match slot {
            Slot::I32(at) => values.push(Value::I32(i32::from_ne_bytes(read4(at)))),
            Slot::I64(at) => values.push(Value::I64(i64::from_ne_bytes(read8(at)))),
            Slot::F32(at) => values.push(Value::F32(f32::from_ne_bytes(read4(at)))),
            Slot::F64(at) => values.push(Value::F64(f64::from_ne_bytes(read8(at)))),
            Slot::Ref(at) => {
                refs.push((values.len(), at));
                values.push(Value::Ref(None));
            }
        }
        Ok(())
    })?;
    let mut failure = None;
    for (index, at) in refs {
        // SAFETY: `at + 16 <= size <= len`; the slot holds a live ref per
        // the contract, taken over here (and zeroed).
        let slot = unsafe { &mut *(bytes.as_mut_ptr().add(at) as *mut iree_vm_ref_t) };
        // SAFETY: as above.
        match unsafe { move_to_vm_ref(slot) } {
            Ok(r) => values[index] = Value::Ref(r),
            Err(e) => failure = failure.or(Some(e)),
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(values),
    }
}

fn write_ref(out: &mut [u8], at: usize, value: iree_vm_ref_t) {
    out[at..at + 8].copy_from_slice(&(value.ptr as usize).to_ne_bytes());
    out[at + 8..at + 16].copy_from_slice(&value.type_.to_ne_bytes());
}

/// Writes `values` into a caller-provided, zeroed result buffer laid out
/// for `types`, with counted refs (owned by the buffer's reader).
pub(crate) fn write_results(types: &[CconvType], values: &[Value], out: &mut [u8]) -> Result<()> {
    let mut packed = Vec::new();
    pack(types, values, &mut packed)?;
    if packed.len() > out.len() {
        // SAFETY: `packed` holds the refs `pack` counted.
        unsafe { release_refs(types, &mut packed) };
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "the {}-byte result buffer is smaller than the {} bytes of the results",
                out.len(),
                packed.len()
            ),
        ));
    }
    out[..packed.len()].copy_from_slice(&packed);
    Ok(())
}

/// Releases the ref at `at` (if any) and zeroes its slot.
///
/// # Safety
/// The slot holds a null or a counted live ref.
unsafe fn release_ref_at(out: &mut [u8], at: usize) {
    let ptr = usize::from_ne_bytes(out[at..at + 8].try_into().expect("8 bytes"));
    let type_ = usize::from_ne_bytes(out[at + 8..at + 16].try_into().expect("8 bytes"));
    // SAFETY: per the contract.
    unsafe { release_object(ptr as *mut _, type_) };
    out[at..at + 16].fill(0);
}

/// Releases every ref left in a buffer laid out for `types`.
///
/// # Safety
/// The ref slots of `bytes` hold null or live counted refs.
pub(crate) unsafe fn release_refs(types: &[CconvType], bytes: &mut [u8]) {
    let mut refs = Vec::new();
    let shared: &[u8] = bytes;
    let _ = walk(types, &mut |at| read_count(shared, at), &mut |slot| {
        if let Slot::Ref(at) = slot {
            if at + 16 <= shared.len() {
                refs.push(at);
            }
        }
        Ok(())
    });
    for at in refs {
        // SAFETY: per the contract.
        unsafe { release_ref_at(bytes, at) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iree_vm::Cconv;

    fn size_of(cconv: &str, counts: &[usize]) -> usize {
        fragment_size(&Cconv::parse(cconv).unwrap().args, counts).unwrap()
    }

    #[test]
    fn layouts_match_upstreams_rules() {
        assert_eq!(size_of("0i", &[]), 4);
        assert_eq!(size_of("0ii", &[]), 8);
        assert_eq!(size_of("0iI", &[]), 16);
        assert_eq!(size_of("0Ii", &[]), 16);
        assert_eq!(size_of("0ir", &[]), 24);
        assert_eq!(size_of("0r", &[]), 16);
        assert_eq!(size_of("0v", &[]), 0);
        // count (4) + pad to 8 + 2 refs.
        assert_eq!(size_of("0CrD", &[2]), 40);
        assert_eq!(size_of("0CrD", &[0]), 8);
        assert_eq!(size_of("0CiD", &[3]), 16);
    }

    #[test]
    fn values_round_trip() {
        let types = Cconv::parse("0iIfFCiD").unwrap().args;
        let values = vec![
            Value::I32(-3),
            Value::I64(1 << 40),
            Value::F32(1.5),
            Value::F64(-2.25),
            Value::I32(2),
            Value::I32(7),
            Value::I32(8),
        ];
        let mut bytes = Vec::new();
        pack(&types, &values, &mut bytes).unwrap();
        // SAFETY: no refs.
        let back = unsafe { unpack(&types, &mut bytes) }.unwrap();
        assert_eq!(format!("{back:?}"), format!("{values:?}"));
    }
}
