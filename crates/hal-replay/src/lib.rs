//! HAL replay: upstream IREE's `.ireereplay` capture format and what reads,
//! writes and runs it.
//!
//! * [`format`]: the file's structures and codes, byte for byte;
//! * [`reader`] and [`writer`]: the one reader and the one writer of the
//!   format;
//! * [`dump`]: `iree-dump-replay`'s text and JSON-lines output.
//!
//! `docs/replay.md` describes every record this crate reads and writes.

pub mod dump;
pub mod format;
pub mod layout;
pub mod reader;
pub mod writer;

pub use dump::{dump, DumpFormat};
pub use reader::{Record, ReplayFile};
pub use writer::{RecordMeta, ReplayWriter};
