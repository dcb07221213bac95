//! Rank-ordered byte-pair encoding, tiktoken's algorithm: repeatedly merge
//! the adjacent pair whose concatenation has the lowest rank.

use std::collections::HashMap;

/// Splits `bytes` into parts by merging adjacent pairs in rank order, using
/// only tokens whose rank is below `rank_limit`. Returns the part boundaries
/// (end offsets, ascending; the last is `bytes.len()`).
pub fn merge_by_rank(bytes: &[u8], ranks: &HashMap<Vec<u8>, u32>, rank_limit: u32) -> Vec<usize> {
    // Part i spans bounds[i]..bounds[i + 1].
    let mut bounds: Vec<usize> = (0..=bytes.len()).collect();
    let rank_of = |start: usize, end: usize| -> Option<u32> {
        ranks
            .get(&bytes[start..end])
            .copied()
            .filter(|&r| r < rank_limit)
    };
    loop {
        let mut best: Option<(u32, usize)> = None;
        for i in 0..bounds.len().saturating_sub(2) {
            if let Some(rank) = rank_of(bounds[i], bounds[i + 2]) {
                if best.is_none_or(|(r, _)| rank < r) {
                    best = Some((rank, i));
                }
            }
        }
        match best {
            Some((_, i)) => {
                bounds.remove(i + 1);
            }
            None => break,
        }
    }
    bounds.remove(0);
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_lowest_rank_first() {
        let mut ranks = HashMap::new();
        for b in 0..=255u8 {
            ranks.insert(vec![b], b as u32);
        }
        ranks.insert(b"bc".to_vec(), 256);
        ranks.insert(b"ab".to_vec(), 257);
        ranks.insert(b"abc".to_vec(), 258);
        assert_eq!(merge_by_rank(b"abc", &ranks, 258), vec![1, 3]);
        assert_eq!(merge_by_rank(b"abc", &ranks, 1000), vec![3]);
        assert_eq!(merge_by_rank(b"abc", &ranks, 256), vec![1, 2, 3]);
        assert_eq!(merge_by_rank(b"", &ranks, 256), Vec::<usize>::new());
    }
}
