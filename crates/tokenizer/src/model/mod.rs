//! Tokenization models: the byte-level alphabet and rank-ordered BPE used to
//! turn tiktoken files into merge-based BPE models, and the direct encoders
//! (byte-level BPE, WordPiece, SentencePiece-style Unigram and BPE) with
//! their per-thread piece cache. Every model of tokenizer.json also runs in
//! the general pipeline, the `tokenizers` crate (see `docs/tokenizer.md`).

pub mod byte_bpe;
pub mod byte_level;
pub(crate) mod piece_cache;
pub mod rank_bpe;
pub(crate) mod sentencepiece;
pub(crate) mod wordpiece;
