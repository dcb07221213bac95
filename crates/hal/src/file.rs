//! Files (`iree_hal_file_t`) and the queue transfers between them and
//! buffers: what `hal.device.queue.read`/`write` and parameter loads,
//! gathers and scatters hand a device ([`crate::Device::queue_transfers`]),
//! in a form a wrapping device can see (a HAL replay capture records each
//! transfer) instead of an opaque host call.

use std::path::Path;
use std::sync::Arc;

use iree_base::bytes::fill_pattern;
use iree_base::{Result, Status, StatusCode};

use crate::buffer::{without_host_access_observation, Buffer, MemoryAccess};

/// A file a device reads and writes in queue order.
pub trait File: Send + Sync {
    /// The length in bytes.
    fn length(&self) -> u64;

    /// The access the file was opened with.
    fn access(&self) -> MemoryAccess;

    /// Calls `f` with the bytes `[offset, offset + length)` (OUT_OF_RANGE
    /// outside the file).
    fn read(&self, offset: u64, length: u64, f: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>;

    /// Writes `data` at `offset` (OUT_OF_RANGE outside the file).
    fn write(&self, offset: u64, data: &[u8]) -> Result<()>;

    /// The path of a file on disk (`None` for files in memory).
    fn path(&self) -> Option<&Path> {
        None
    }
}

/// One transfer of [`crate::Device::queue_transfers`].
#[derive(Clone)]
pub enum QueueTransfer {
    /// Copies file bytes into a buffer.
    Read {
        /// The file.
        file: Arc<dyn File>,
        /// Offset in the file.
        file_offset: u64,
        /// The buffer written.
        target: Buffer,
        /// Offset in the buffer.
        target_offset: u64,
        /// Bytes copied.
        length: u64,
    },
    /// Copies buffer bytes into a file.
    Write {
        /// The buffer read.
        source: Buffer,
        /// Offset in the buffer.
        source_offset: u64,
        /// The file.
        file: Arc<dyn File>,
        /// Offset in the file.
        file_offset: u64,
        /// Bytes copied.
        length: u64,
    },
    /// Fills a buffer range with a 1 to 16 byte pattern that starts
    /// `phase` bytes into the pattern.
    Fill {
        /// The buffer written.
        target: Buffer,
        /// Offset in the buffer.
        target_offset: u64,
        /// Bytes written.
        length: u64,
        /// The pattern.
        pattern: Vec<u8>,
        /// Where in the pattern the range starts.
        phase: usize,
    },
}

impl QueueTransfer {
    /// Runs the transfer on the calling thread (device work: buffer
    /// observers are not told of it).
    pub fn run(&self) -> Result<()> {
        without_host_access_observation(|| match self {
            QueueTransfer::Read {
                file,
                file_offset,
                target,
                target_offset,
                length,
            } => file.read(*file_offset, *length, &mut |bytes| {
                target.write(*target_offset, bytes)
            }),
            QueueTransfer::Write {
                source,
                source_offset,
                file,
                file_offset,
                length,
            } => source.map_read(*source_offset, *length, |bytes| {
                file.write(*file_offset, bytes)
            })?,
            QueueTransfer::Fill {
                target,
                target_offset,
                length,
                pattern,
                phase,
            } => {
                if pattern.is_empty() || pattern.len() > 16 || *phase >= pattern.len() {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        format!(
                            "fill patterns must be 1 to 16 bytes (got {} at phase {phase})",
                            pattern.len()
                        ),
                    ));
                }
                let whole = *phase == 0 && length.is_multiple_of(pattern.len() as u64);
                if whole && matches!(pattern.len(), 1 | 2 | 4) {
                    return target.fill(*target_offset, *length, pattern);
                }
                target.map_write(*target_offset, *length, |bytes| {
                    fill_pattern(bytes, pattern, *phase)
                })
            }
        })
    }
}

/// Runs `transfers` in order, stopping at the first failure.
pub fn run_transfers(transfers: &[QueueTransfer]) -> Result<()> {
    transfers.iter().try_for_each(QueueTransfer::run)
}
