//! Readers of tokenizer file formats.

pub mod huggingface;
pub mod tiktoken;
