//! HAL replay: upstream IREE's `.ireereplay` capture format and what reads,
//! writes and runs it.
//!
//! * [`format`](mod@format): the file's structures and codes, byte for byte;
//! * [`reader`] and [`writer`]: the one reader and the one writer of the
//!   format;
//! * [`dump`](mod@dump): `iree-dump-replay`'s text and JSON-lines output;
//! * [`recorder`]: capture, a device wrapper recording every HAL call made
//!   through it;
//! * [`execute`]: re-issuing a capture's HAL calls on devices
//!   (`iree-run-replay`, `iree-benchmark-replay`).
//!
//! `docs/replay.md` describes every record this crate reads and writes.

pub mod dump;
pub mod execute;
pub mod format;
pub mod layout;
pub mod reader;
pub mod recorder;
pub mod writer;

pub use dump::{dump, DumpFormat};
pub use execute::{ExecuteOptions, Plan, Substitution, SubstitutionRequest};
pub use reader::{Record, ReplayFile};
pub use recorder::{FilePolicy, FileValidation, Recorder, RecorderOptions, RecordingDevice};
pub use writer::{RecordMeta, ReplayWriter};
