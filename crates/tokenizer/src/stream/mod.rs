//! Streaming encode and decode: text or ids arrive in pieces; output is
//! produced as soon as it can no longer change, and the concatenation of all
//! outputs equals the one-shot result.

mod decode;
mod encode;

pub use decode::DecodeStream;
pub use encode::EncodeStream;
