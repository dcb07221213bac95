//! Where the variable-length parts of a payload lie: a payload is a fixed
//! head ([`crate::format`]'s structures) followed by arrays (timepoints,
//! bindings, barriers) and byte strings, each sized by a count in the head.
//! [`sections`] checks that they add up to exactly the payload and gives
//! each one's range; the dump and the executor both read payloads through
//! it.

use std::ops::Range;

use iree_base::{Result, Status, StatusCode};

use crate::format::Wire;

/// The ranges, within a payload of `payload_len` bytes, of `N` sections
/// after a `head`-byte head, each `count` elements of `element_size`
/// bytes, laid end to end. `what` names the payload in errors, as upstream
/// does (`dispatch`, `queue execute`, `queue`): OUT_OF_RANGE when a size
/// overflows, DATA_LOSS when the sections do not end exactly at the
/// payload's end.
pub fn sections<const N: usize>(
    payload_len: usize,
    head: usize,
    parts: [(u64, usize); N],
    what: &str,
) -> Result<[Range<usize>; N]> {
    let mut sizes = [0usize; N];
    for (size, (count, element_size)) in sizes.iter_mut().zip(parts) {
        *size = usize::try_from(count)
            .ok()
            .and_then(|count| count.checked_mul(element_size))
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    format!("replay {what} payload count overflow"),
                )
            })?;
    }
    let mut ranges: [Range<usize>; N] = std::array::from_fn(|_| 0..0);
    let mut offset = head;
    for (range, size) in ranges.iter_mut().zip(sizes) {
        let end = offset.checked_add(size).ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                format!("replay {what} payload length overflow"),
            )
        })?;
        *range = offset..end;
        offset = end;
    }
    if offset != payload_len {
        return Err(Status::new(
            StatusCode::DataLoss,
            format!("replay {what} payload length mismatch"),
        ));
    }
    Ok(ranges)
}

/// The elements of an array section (whose length [`sections`] checked is
/// a multiple of `T::SIZE`).
pub fn items<T: Wire + 'static>(bytes: &[u8]) -> impl ExactSizeIterator<Item = T> + '_ {
    bytes.chunks_exact(T::SIZE).map(T::decode)
}

/// The fixed head of a payload, or DATA_LOSS `replay {what} payload is
/// short` when the payload is shorter.
pub fn head<T: Wire>(payload: &[u8], what: &str) -> Result<T> {
    T::read(payload).ok_or_else(|| {
        Status::new(
            StatusCode::DataLoss,
            format!("replay {what} payload is short"),
        )
    })
}

/// The head of a payload that must be exactly `T::SIZE` bytes: DATA_LOSS
/// `replay payload type N has X bytes; expected Y` otherwise.
pub fn exact<T: Wire>(payload: &[u8], payload_type: u32) -> Result<T> {
    if payload.len() != T::SIZE {
        return Err(Status::new(
            StatusCode::DataLoss,
            format!(
                "replay payload type {payload_type} has {} bytes; expected {}",
                payload.len(),
                T::SIZE
            ),
        ));
    }
    Ok(T::decode(payload))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_must_fill_the_payload_exactly() {
        let [a, b] = sections(40, 8, [(1, 16), (2, 8)], "queue").unwrap();
        assert_eq!((a, b), (8..24, 24..40));
        let err = sections(41, 8, [(1, 16), (2, 8)], "queue").unwrap_err();
        assert_eq!(err.code(), StatusCode::DataLoss);
        assert_eq!(err.message(), "replay queue payload length mismatch");
        let err = sections(41, 8, [(u64::MAX, 16)], "dispatch").unwrap_err();
        assert_eq!(err.code(), StatusCode::OutOfRange);
    }
}
