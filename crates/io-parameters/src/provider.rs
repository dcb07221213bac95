//! Parameter providers: what serves `load`, `gather` and `scatter` for a
//! scope. [`IndexProvider`] serves one scope from a [`ParameterIndex`].
//!
//! Every operation is queue-ordered on the device: it starts once the wait
//! fence is reached and signals the signal fence when all of its transfers
//! are done (or fails it with the first error). Loads of file-backed
//! parameters hand the device a private mapping of the file when its
//! allocator can use host memory (no copy; pages are read on first touch);
//! everything else is allocated and filled by a queued copy.

use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{Buffer, BufferParams, Device, Fence, MemoryAccess, QueueTransfer};

use crate::index::{EntryStorage, IndexEntry, ParameterIndex};

/// One parameter range of an operation: `length` bytes at
/// `parameter_offset` of the parameter `key`, and where they go in (or
/// come from) the buffer.
#[derive(Clone, Copy, Debug)]
pub struct Span<'a> {
    /// The parameter key.
    pub key: &'a [u8],
    /// Offset within the parameter.
    pub parameter_offset: u64,
    /// Offset within the buffer.
    pub buffer_offset: u64,
    /// Length in bytes.
    pub length: u64,
}

/// Serves parameter operations for the scopes it supports.
pub trait ParameterProvider: Send + Sync {
    /// Whether this provider serves `scope`.
    fn supports_scope(&self, scope: &[u8]) -> bool;

    /// Loads each span into a new buffer with `params` (one buffer per
    /// span, `length` bytes each).
    fn load(
        &self,
        device: &Arc<dyn Device>,
        wait: &Fence,
        signal: &Fence,
        params: BufferParams,
        spans: &[Span<'_>],
    ) -> Result<Vec<Buffer>>;

    /// Reads each span into `target` at its buffer offset.
    fn gather(
        &self,
        device: &Arc<dyn Device>,
        wait: &Fence,
        signal: &Fence,
        target: &Buffer,
        spans: &[Span<'_>],
    ) -> Result<()>;

    /// Writes each span of `source` (from its buffer offset) into the
    /// parameter's storage.
    fn scatter(
        &self,
        device: &Arc<dyn Device>,
        wait: &Fence,
        signal: &Fence,
        source: &Buffer,
        spans: &[Span<'_>],
    ) -> Result<()>;
}

/// A provider serving one scope from an index.
pub struct IndexProvider {
    scope: Vec<u8>,
    index: ParameterIndex,
}

/// Runs `prepare`, then queues the transfers it lists in order after
/// `wait` ([`Device::queue_transfers`]), signaling `signal` when they are
/// done. A failure while preparing fails `signal` too, as upstream's
/// batches do.
fn submit<T>(
    device: &Arc<dyn Device>,
    wait: &Fence,
    signal: &Fence,
    prepare: impl FnOnce(&mut Vec<QueueTransfer>) -> Result<T>,
) -> Result<T> {
    let mut transfers = Vec::new();
    match prepare(&mut transfers) {
        Ok(value) => {
            device.queue_transfers(wait, signal, transfers)?;
            Ok(value)
        }
        Err(status) => {
            signal.fail(status.clone());
            Err(status)
        }
    }
}

impl IndexProvider {
    /// A provider serving `scope` (empty for the unscoped form) from `index`.
    pub fn new(scope: impl Into<Vec<u8>>, index: ParameterIndex) -> IndexProvider {
        IndexProvider {
            scope: scope.into(),
            index,
        }
    }

    /// The index.
    pub fn index(&self) -> &ParameterIndex {
        &self.index
    }

    /// Looks up a span's entry and checks access and range.
    fn resolve(&self, span: &Span<'_>, access: MemoryAccess) -> Result<&IndexEntry> {
        let entry = self.index.lookup(span.key).annotate_with(|| {
            format!(
                "in parameter scope '{}'",
                String::from_utf8_lossy(&self.scope)
            )
        })?;
        let allowed = match &entry.storage {
            EntryStorage::Splat { .. } => MemoryAccess::READ,
            EntryStorage::File { file, .. } if file.is_writable() => {
                MemoryAccess::READ | MemoryAccess::WRITE | MemoryAccess::DISCARD
            }
            EntryStorage::File { .. } => MemoryAccess::READ,
        };
        if !allowed.contains(access) {
            return Err(Status::new(
                StatusCode::PermissionDenied,
                format!(
                    "parameter `{}` storage does not support the requested access type; parameter allows {}, operation requires {}",
                    entry.key_str(),
                    allowed.format(),
                    access.format()
                ),
            ));
        }
        if span
            .parameter_offset
            .checked_add(span.length)
            .is_none_or(|end| end > entry.length)
        {
            let source = match &entry.storage {
                EntryStorage::File { file, .. } => format!(" in `{}`", file.path().display()),
                EntryStorage::Splat { .. } => " (a splat)".to_string(),
            };
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "parameter `{}` range out of bounds (offset={}, length={}, size={}){source}; the program expects more bytes than the parameter file holds",
                    entry.key_str(),
                    span.parameter_offset,
                    span.length,
                    entry.length
                ),
            ));
        }
        Ok(entry)
    }

    /// The transfer that puts a span of `entry` into `target`.
    fn read_into(
        entry: &IndexEntry,
        span: &Span<'_>,
        target: Buffer,
        target_offset: u64,
    ) -> Result<QueueTransfer> {
        Ok(match &entry.storage {
            EntryStorage::Splat { pattern_length, .. } if !(1..=16).contains(pattern_length) => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "splat parameter `{}` has a {pattern_length}-byte pattern (1 to 16 allowed)",
                        entry.key_str()
                    ),
                ))
            }
            EntryStorage::Splat {
                pattern,
                pattern_length,
            } => QueueTransfer::Fill {
                pattern: pattern[..usize::from(*pattern_length)].to_vec(),
                // Lengths are 1 to 16 (checked when parsed).
                phase: (span.parameter_offset % u64::from(*pattern_length)) as usize,
                target,
                target_offset,
                length: span.length,
            },
            EntryStorage::File { file, offset } => QueueTransfer::Read {
                file: file.clone(),
                // In range: the index checked the entry against the file.
                file_offset: offset + span.parameter_offset,
                target,
                target_offset,
                length: span.length,
            },
        })
    }
}

impl ParameterProvider for IndexProvider {
    fn supports_scope(&self, scope: &[u8]) -> bool {
        scope == self.scope.as_slice()
    }

    fn load(
        &self,
        device: &Arc<dyn Device>,
        wait: &Fence,
        signal: &Fence,
        params: BufferParams,
        spans: &[Span<'_>],
    ) -> Result<Vec<Buffer>> {
        let allocator = device.allocator();
        submit(device, wait, signal, |transfers| {
            let mut buffers = Vec::with_capacity(spans.len());
            for span in spans {
                let entry = self.resolve(span, MemoryAccess::READ)?;
                if let EntryStorage::File { file, offset } = &entry.storage {
                    // Zero-copy: a private mapping of the range, when the
                    // allocator takes host memory (and the range starts
                    // suitably aligned). Any failure falls back to a copy.
                    let imported = file
                        .map_private(offset + span.parameter_offset, span.length)
                        .ok()
                        .flatten()
                        .and_then(|memory| allocator.import_host_memory(params, memory).ok());
                    if let Some(buffer) = imported {
                        buffers.push(buffer);
                        continue;
                    }
                }
                let buffer = allocator.allocate_buffer(params, span.length)?;
                transfers.push(Self::read_into(
                    entry,
                    span,
                    buffer.clone(),
                    span.buffer_offset,
                )?);
                buffers.push(buffer);
            }
            Ok(buffers)
        })
    }

    fn gather(
        &self,
        device: &Arc<dyn Device>,
        wait: &Fence,
        signal: &Fence,
        target: &Buffer,
        spans: &[Span<'_>],
    ) -> Result<()> {
        submit(device, wait, signal, |transfers| {
            for span in spans {
                let entry = self.resolve(span, MemoryAccess::READ)?;
                transfers.push(Self::read_into(
                    entry,
                    span,
                    target.clone(),
                    span.buffer_offset,
                )?);
            }
            Ok(())
        })
    }

    fn scatter(
        &self,
        device: &Arc<dyn Device>,
        wait: &Fence,
        signal: &Fence,
        source: &Buffer,
        spans: &[Span<'_>],
    ) -> Result<()> {
        submit(device, wait, signal, |transfers| {
            for span in spans {
                let entry = self.resolve(span, MemoryAccess::WRITE)?;
                match &entry.storage {
                    EntryStorage::File { file, offset } => transfers.push(QueueTransfer::Write {
                        source: source.clone(),
                        source_offset: span.buffer_offset,
                        file: file.clone(),
                        file_offset: offset + span.parameter_offset,
                        length: span.length,
                    }),
                    EntryStorage::Splat { .. } => {
                        return Err(Status::new(
                            StatusCode::FailedPrecondition,
                            format!(
                                "scatter not supported with splat parameter `{}`",
                                entry.key_str()
                            ),
                        ))
                    }
                }
            }
            Ok(())
        })
    }
}
