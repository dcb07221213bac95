//! `merge_count` and `vocab_capacity` on the fixtures.

mod common;

use common::load_file as load;

#[test]
fn merge_count_and_vocab_capacity() {
    // 377 ids (0-376, <|endoftext|> last), 120 merges.
    let bpe = load("bpe_byte_level.json");
    assert_eq!(bpe.merge_count(), 120);
    assert_eq!(bpe.vocab_capacity(), 377);
    assert_eq!(bpe.general_pipeline_only().merge_count(), 120);
    // WordPiece has no merges.
    let bert = load("wordpiece_bert.json");
    assert_eq!(bert.merge_count(), 0);
    assert_eq!(bert.vocab_capacity(), 104);
    // tiktoken: one merge per multi-byte rank (120 of 376); gpt2's
    // <|endoftext|> is id 50256, far above the ranks.
    let tiktoken = load("gpt2.tiktoken");
    assert_eq!(tiktoken.merge_count(), 120);
    assert_eq!(tiktoken.vocab_capacity(), 50257);
    assert!(tiktoken.vocab_size() < tiktoken.vocab_capacity());
}
