//! Byte-range helpers shared by every buffer kind (`vm.buffer`, HAL buffers,
//! parameter spans): one place that knows how to fill memory with a
//! repeated pattern at memset speed.

/// Bytes written per step when a pattern is not a single repeated byte: a
/// multiple of every power-of-two pattern width up to 64, and a size the
/// compiler turns into straight vector stores.
const BLOCK: usize = 64;

/// Fills `bytes` with `pattern` repeated, starting `phase` bytes into the
/// pattern (so a range may begin mid-pattern); the last repetition may be
/// cut short. An empty pattern leaves `bytes` untouched.
///
/// Patterns whose bytes are all equal (zero, the common case) become one
/// `memset`; others are written a 64-byte block at a time.
pub fn fill_pattern(bytes: &mut [u8], pattern: &[u8], phase: usize) {
    let Some(&first) = pattern.first() else {
        return;
    };
    if pattern.iter().all(|&b| b == first) {
        bytes.fill(first);
        return;
    }
    let n = pattern.len();
    if BLOCK.is_multiple_of(n) {
        // Every block starts at the same pattern phase, so one fixed-size
        // block serves the whole range.
        let mut block = [0u8; BLOCK];
        for (i, b) in block.iter_mut().enumerate() {
            *b = pattern[(phase + i) % n];
        }
        let mut chunks = bytes.chunks_exact_mut(BLOCK);
        for chunk in &mut chunks {
            chunk.copy_from_slice(&block);
        }
        let rest = chunks.into_remainder();
        let len = rest.len();
        rest.copy_from_slice(&block[..len]);
    } else {
        // Odd pattern widths (3, 5, ... bytes): blocks of whole patterns.
        let step = (BLOCK / n).max(1) * n;
        let block: Vec<u8> = (0..step).map(|i| pattern[(phase + i) % n]).collect();
        let mut chunks = bytes.chunks_exact_mut(step);
        for chunk in &mut chunks {
            chunk.copy_from_slice(&block);
        }
        let rest = chunks.into_remainder();
        let len = rest.len();
        rest.copy_from_slice(&block[..len]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious byte-at-a-time definition.
    fn reference(len: usize, pattern: &[u8], phase: usize) -> Vec<u8> {
        (0..len)
            .map(|i| pattern[(phase + i) % pattern.len()])
            .collect()
    }

    #[test]
    fn matches_the_reference_for_every_width_phase_and_length() {
        let patterns: [&[u8]; 8] = [
            &[0xAB],
            &[1, 2],
            &[1, 2, 3],
            &[0, 0, 0x80, 0x3F],
            &[9, 9, 9, 9],
            &[1, 2, 3, 4, 5],
            &[1, 2, 3, 4, 5, 6, 7, 8],
            &[0x10; 16],
        ];
        for pattern in patterns {
            for phase in 0..pattern.len() {
                for len in (0..200).chain([4095, 4096, 65_537]) {
                    let mut bytes = vec![0x5Au8; len];
                    fill_pattern(&mut bytes, pattern, phase);
                    assert_eq!(
                        bytes,
                        reference(len, pattern, phase),
                        "pattern {pattern:?} phase {phase} len {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_empty_pattern_writes_nothing() {
        let mut bytes = [7u8; 5];
        fill_pattern(&mut bytes, &[], 0);
        assert_eq!(bytes, [7; 5]);
    }
}
