//! Normalizers: direct implementations of the tokenizer.json normalizers
//! that the direct encoders use (`pipeline.rs`). Each appends normalized
//! text to a buffer and, when asked, the offset in the input that each
//! output byte came from, so that encoders can report spans in the input.

pub(crate) mod bert;
pub(crate) mod sentencepiece;
