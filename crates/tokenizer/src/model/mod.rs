//! Tokenization models: the byte-level alphabet and rank-ordered BPE used to
//! turn tiktoken files into merge-based BPE models. BPE, WordPiece, WordLevel
//! and Unigram models of tokenizer.json are run by the `tokenizers` crate
//! (see `docs/tokenizer.md`).

pub mod byte_bpe;
pub mod byte_level;
pub(crate) mod piece_cache;
pub mod rank_bpe;
pub(crate) mod sentencepiece;
pub(crate) mod wordpiece;
