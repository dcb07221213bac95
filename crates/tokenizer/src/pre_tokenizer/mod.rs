//! Pre-tokenizers: direct implementations of the tokenizer.json
//! pre-tokenizers that the direct encoders use (`pipeline.rs`). Each splits
//! normalized text into the pieces the model tokenizes independently.

pub(crate) mod bert;
pub(crate) mod metaspace;
