//! Collective channels (`iree_hal_channel_t`) and the collective operations
//! command buffers record against them.
//!
//! A [`Channel`] is one participant (a *rank*) of a group of `count` ranks.
//! Channels are created from a device ([`crate::Device::create_channel`])
//! with [`ChannelParams`] (usually "from the environment": rank and count
//! default), split into sub-groups ([`Channel::split`]), and used by
//! [`crate::CommandBuffer::collective`] commands, which run in order with the
//! dispatches and transfers around them when the command buffer executes.
//!
//! Two providers exist, both for the host-memory (local) devices:
//! - [`LocalChannel`]: rank 0 of 1, for processes not started by an MPI
//!   launcher. Collectives of one rank are local copies (sends are queued
//!   until the matching receive), so single-process programs run.
//! - [`mpi::MpiChannel`]: an MPI communicator, with `libmpi` loaded at run
//!   time (Open MPI and MPICH ABIs). See [`mpi`] for how it is found,
//!   initialised and finalised.
//!
//! [`create_host_channel`] picks between them as upstream's MPI channel
//! provider would: under an MPI launcher (or when the process already
//! initialised MPI, as mpi4py does) the default channel is `MPI_COMM_WORLD`.
//!
//! Devices with their own collective library (the CUDA driver's NCCL
//! channels) implement [`Channel`] too: [`Channel::as_any`] lets the driver
//! recognise its channels in recorded command buffers and run their
//! collectives on device memory, after the same range checks
//! ([`Collective::checked_ranges`]) the host path makes.
//!
//! Every collective is validated before it runs: the op's kind, reduction and
//! element type, the ranks it names, and the byte ranges against what the
//! op reads and writes ([`Collective::required_bytes`]).

pub mod mpi;

use std::collections::VecDeque;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use parking_lot::Mutex;

use crate::buffer::{Buffer, DeviceAccess};
use crate::command_buffer::BufferBinding;
use crate::math::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};

/// `IREE_HAL_CHANNEL_RANK_DEFAULT`: take the rank from the environment.
pub const RANK_DEFAULT: i32 = -1;
/// `IREE_HAL_CHANNEL_COUNT_DEFAULT`: take the count from the environment.
pub const COUNT_DEFAULT: i32 = -1;
/// `IREE_HAL_CHANNEL_NO_COLOR`: a split that leaves this rank out.
pub const NO_COLOR: i32 = -1;

/// What a channel is created from (`iree_hal_channel_params_t`).
#[derive(Clone, Debug, Default)]
pub struct ChannelParams {
    /// Channel flags (none are defined).
    pub flags: u64,
    /// Implementation-defined identifier; empty: from the environment.
    pub id: Vec<u8>,
    /// Opaque group key.
    pub group: Option<String>,
    /// This participant's rank, or [`RANK_DEFAULT`].
    pub rank: i32,
    /// The number of participants, or [`COUNT_DEFAULT`].
    pub count: i32,
}

impl ChannelParams {
    /// Parameters taking rank and count from the environment.
    pub fn from_environment() -> ChannelParams {
        ChannelParams {
            rank: RANK_DEFAULT,
            count: COUNT_DEFAULT,
            ..Default::default()
        }
    }

    /// Checks rank and count: each is its default or in range, and they are
    /// both given or both defaulted.
    pub fn validate(&self) -> Result<()> {
        let bad = |message: String| Err(Status::new(StatusCode::InvalidArgument, message));
        match (self.rank, self.count) {
            (RANK_DEFAULT, COUNT_DEFAULT) => Ok(()),
            (rank, count) if count >= 1 && rank >= 0 && rank < count => Ok(()),
            (RANK_DEFAULT, _) | (_, COUNT_DEFAULT) => bad(format!(
                "channel rank ({}) and count ({}) must both be given or both be defaulted (-1)",
                self.rank, self.count
            )),
            (rank, count) => bad(format!(
                "channel rank {rank} is out of range for a count of {count}"
            )),
        }
    }
}

/// One participant of a collective group (`iree_hal_channel_t`).
pub trait Channel: Send + Sync {
    /// What provides the channel (`"local"`, `"mpi"`), for messages.
    fn provider(&self) -> &str;

    /// This participant's rank in `[0, count)`.
    fn rank(&self) -> i32;

    /// The number of participants.
    fn count(&self) -> i32;

    /// Splits the group: ranks passing the same `color` form a new group,
    /// ordered by `key` (then by rank). Every rank of the group must call
    /// it. [`NO_COLOR`] leaves this rank out: `None`.
    fn split(&self, color: i32, key: i32, flags: u64) -> Result<Option<Arc<dyn Channel>>>;

    /// Runs one validated collective over resolved host ranges.
    fn run(&self, collective: &Collective, io: &mut CollectiveIo<'_>) -> Result<()>;

    /// The concrete channel, for drivers that run collectives of their own
    /// channels on device memory (the CUDA driver's NCCL channels); `None`
    /// by default.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// `iree_hal_collective_kind_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectiveKind {
    /// Concatenates `element_count / count` elements from every rank into
    /// `element_count` (the compiler counts the gathered result).
    AllGather = 0,
    /// Reduces `element_count` elements, the result on every rank.
    AllReduce = 1,
    /// Exchanges the `1/count` parts of `element_count` elements.
    AllToAll = 2,
    /// Copies the elements of rank `param` to every rank.
    Broadcast = 3,
    /// Reduces onto rank `param`.
    Reduce = 4,
    /// Reduces `count * element_count` elements; rank `i` keeps block `i`.
    ReduceScatter = 5,
    /// Sends to rank `param`.
    Send = 6,
    /// Receives from rank `param`.
    Recv = 7,
    /// Sends to the low 16 bits of `param`, receives from the high 16 bits
    /// (either `-1`: none; nothing received leaves zeros).
    SendRecv = 8,
}

/// `iree_hal_collective_reduction_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// No reduction (non-reducing kinds).
    None = 0,
    /// Addition.
    Sum = 1,
    /// Multiplication.
    Product = 2,
    /// Minimum.
    Minimum = 3,
    /// Maximum.
    Maximum = 4,
    /// Sum divided by the rank count.
    Average = 5,
}

/// `iree_hal_collective_element_type_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectiveElementType {
    /// `si8`.
    Sint8 = 0,
    /// `ui8`.
    Uint8 = 1,
    /// `si16`.
    Sint16 = 2,
    /// `ui16`.
    Uint16 = 3,
    /// `si32`.
    Sint32 = 4,
    /// `ui32`.
    Uint32 = 5,
    /// `si64`.
    Sint64 = 6,
    /// `ui64`.
    Uint64 = 7,
    /// `f16`.
    Float16 = 8,
    /// `f32`.
    Float32 = 9,
    /// `f64`.
    Float64 = 10,
    /// `bf16`.
    BFloat16 = 11,
}

impl CollectiveElementType {
    /// Bytes per element.
    pub fn byte_count(self) -> u64 {
        use CollectiveElementType::*;
        match self {
            Sint8 | Uint8 => 1,
            Sint16 | Uint16 | Float16 | BFloat16 => 2,
            Sint32 | Uint32 | Float32 => 4,
            Sint64 | Uint64 | Float64 => 8,
        }
    }

    /// Whether the type is a 16-bit float (which MPI cannot reduce).
    pub fn is_half(self) -> bool {
        matches!(
            self,
            CollectiveElementType::Float16 | CollectiveElementType::BFloat16
        )
    }
}

/// A decoded `iree_hal_collective_op_t` (kind, reduction, element type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollectiveOp {
    /// The operation.
    pub kind: CollectiveKind,
    /// The reduction (reducing kinds only).
    pub reduction: Reduction,
    /// The element type.
    pub element_type: CollectiveElementType,
}

impl CollectiveOp {
    /// Decodes upstream's packed form (byte 0 kind, 1 reduction, 2 element
    /// type, 3 reserved), rejecting unknown values and reductions missing
    /// from (or given to) the kinds that reduce.
    pub fn from_packed(packed: u32) -> Result<CollectiveOp> {
        let [kind, reduction, element_type, _reserved] = packed.to_le_bytes();
        let bad = |what: &str, value: u8| {
            Status::new(
                StatusCode::InvalidArgument,
                format!("unknown collective {what} {value} (op {packed:#010x})"),
            )
        };
        use CollectiveKind::*;
        let kind = [
            AllGather,
            AllReduce,
            AllToAll,
            Broadcast,
            Reduce,
            ReduceScatter,
            Send,
            Recv,
            SendRecv,
        ]
        .get(kind as usize)
        .copied()
        .ok_or_else(|| bad("kind", kind))?;
        use Reduction::*;
        let reduction = [None, Sum, Product, Minimum, Maximum, Average]
            .get(reduction as usize)
            .copied()
            .ok_or_else(|| bad("reduction", reduction))?;
        use CollectiveElementType::*;
        let element_type = [
            Sint8, Uint8, Sint16, Uint16, Sint32, Uint32, Sint64, Uint64, Float16, Float32,
            Float64, BFloat16,
        ]
        .get(element_type as usize)
        .copied()
        .ok_or_else(|| bad("element type", element_type))?;
        let op = CollectiveOp {
            kind,
            reduction,
            element_type,
        };
        if op.reduces() && reduction == Reduction::None {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("collective {kind:?} requires a reduction operation"),
            ));
        }
        if !op.reduces() && reduction != Reduction::None {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "reduction operation cannot be specified on a non-reducing collective",
            ));
        }
        Ok(op)
    }

    /// Whether the kind combines elements with [`CollectiveOp::reduction`].
    pub fn reduces(&self) -> bool {
        matches!(
            self.kind,
            CollectiveKind::AllReduce | CollectiveKind::Reduce | CollectiveKind::ReduceScatter
        )
    }
}

/// One recorded collective: op, parameter and element count.
#[derive(Clone, Copy, Debug)]
pub struct Collective {
    /// The decoded op.
    pub op: CollectiveOp,
    /// The kind's parameter (a rank, or two packed 16-bit ranks).
    pub param: u32,
    /// Elements per the kind's definition.
    pub element_count: u64,
}

/// A rank named by a send/recv parameter: none (`-1`) or a rank.
fn peer(value: i32, count: i32, what: &str) -> Result<Option<i32>> {
    match value {
        -1 => Ok(None),
        r if (0..count).contains(&r) => Ok(Some(r)),
        r => Err(Status::new(
            StatusCode::OutOfRange,
            format!("collective {what} rank {r} out of range for {count} ranks"),
        )),
    }
}

impl Collective {
    /// The `send_recv` peers: (target, source), each optional.
    pub fn send_recv_peers(&self, count: i32) -> Result<(Option<i32>, Option<i32>)> {
        let target = self.param as u16 as i16 as i32;
        let source = (self.param >> 16) as u16 as i16 as i32;
        Ok((
            peer(target, count, "send target")?,
            peer(source, count, "receive source")?,
        ))
    }

    /// The single rank `param` names (broadcast/reduce root, send target,
    /// receive source), checked against `count`.
    pub fn param_rank(&self, count: i32) -> Result<i32> {
        match i32::try_from(self.param) {
            Ok(r) if r < count => Ok(r),
            _ => Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "collective {:?} names rank {} of a {count} rank channel",
                    self.op.kind, self.param as i32
                ),
            )),
        }
    }

    /// Bytes the op reads from the send range and writes to the receive
    /// range on rank `rank` of `count` (`None`: that range is unused).
    pub fn required_bytes(&self, rank: i32, count: i32) -> Result<(Option<u64>, Option<u64>)> {
        let n = count as u64;
        let bytes = self
            .element_count
            .checked_mul(self.op.element_type.byte_count())
            .and_then(|b| b.checked_mul(n).map(|_| b))
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    format!("collective of {} elements overflows", self.element_count),
                )
            })?;
        use CollectiveKind::*;
        Ok(match self.op.kind {
            // As the compiler emits it, the count of an all_gather is the
            // gathered (received) element count; each rank sends 1/count.
            AllGather => {
                self.divides(count, "all_gather")?;
                (Some(bytes / n), Some(bytes))
            }
            AllReduce => (Some(bytes), Some(bytes)),
            AllToAll => {
                self.divides(count, "all_to_all")?;
                (Some(bytes), Some(bytes))
            }
            Broadcast => {
                // The root's receive range gets a copy (as NCCL's does).
                if self.param_rank(count)? == rank {
                    (Some(bytes), Some(bytes))
                } else {
                    (None, Some(bytes))
                }
            }
            Reduce => {
                let root = self.param_rank(count)?;
                (Some(bytes), (root == rank).then_some(bytes))
            }
            ReduceScatter => (Some(bytes * n), Some(bytes)),
            Send => {
                self.param_rank(count)?;
                (Some(bytes), None)
            }
            Recv => {
                self.param_rank(count)?;
                (None, Some(bytes))
            }
            SendRecv => {
                let (target, _source) = self.send_recv_peers(count)?;
                // Receive: data or zeros, always written.
                (target.map(|_| bytes), Some(bytes))
            }
        })
    }

    /// Checks that the element count divides among `count` ranks.
    fn divides(&self, count: i32, what: &str) -> Result<()> {
        if self.element_count.is_multiple_of(count as u64) {
            return Ok(());
        }
        Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "{what} of {} elements does not divide among {count} ranks",
                self.element_count
            ),
        ))
    }

    /// Bytes of `element_count` elements.
    pub fn byte_count(&self) -> u64 {
        self.element_count * self.op.element_type.byte_count()
    }

    /// Checks `send` and `recv` against what the op uses on rank `rank` of
    /// `count` ([`Collective::required_bytes`]): a range the op uses must
    /// be given and long enough; a range it does not use is dropped.
    pub fn checked_ranges<'a>(
        &self,
        rank: i32,
        count: i32,
        send: Option<BufferBinding<'a>>,
        recv: Option<BufferBinding<'a>>,
    ) -> Result<(Option<CollectiveRange<'a>>, Option<CollectiveRange<'a>>)> {
        let (send_bytes, recv_bytes) = self.required_bytes(rank, count)?;
        Ok((
            CollectiveRange::check(send, send_bytes, "send")?,
            CollectiveRange::check(recv, recv_bytes, "receive")?,
        ))
    }

    /// What a failed collective's status is annotated with.
    pub fn describe(&self, channel: &dyn Channel) -> String {
        format!(
            "while running {:?} ({:?}, {:?}) of {} elements on rank {} of {} ({} channel)",
            self.op.kind,
            self.op.reduction,
            self.op.element_type,
            self.element_count,
            channel.rank(),
            channel.count(),
            channel.provider()
        )
    }
}

/// One range a collective uses: its binding and the bytes the op reads or
/// writes from the binding's start (at most its length).
#[derive(Clone, Copy, Debug)]
pub struct CollectiveRange<'a> {
    /// The resolved binding.
    pub binding: BufferBinding<'a>,
    /// The bytes the op uses.
    pub bytes: u64,
}

impl<'a> CollectiveRange<'a> {
    /// `binding` checked to hold `needed` bytes (`None` where the op uses
    /// no such range).
    fn check(
        binding: Option<BufferBinding<'a>>,
        needed: Option<u64>,
        what: &str,
    ) -> Result<Option<CollectiveRange<'a>>> {
        let Some(needed) = needed else {
            return Ok(None);
        };
        let Some(binding) = binding else {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("collective requires a {what} buffer of {needed} bytes"),
            ));
        };
        if needed > binding.length {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "collective {what} range of {} bytes is smaller than the {needed} bytes the op uses",
                    binding.length
                ),
            ));
        }
        Ok(Some(CollectiveRange {
            binding,
            bytes: needed,
        }))
    }
}

/// A host byte range held under device access for one collective.
pub struct HostSpan {
    ptr: *mut u8,
    len: usize,
}

impl HostSpan {
    /// The first byte.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty range.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether two spans share a byte.
    pub fn overlaps(&self, other: &HostSpan) -> bool {
        let (a, b) = (self.ptr as usize, other.ptr as usize);
        self.len > 0 && other.len > 0 && a < b + other.len && b < a + self.len
    }
}

/// The resolved send and receive ranges of one collective, held under
/// device access (so no host mapping of the buffers can start meanwhile),
/// each exactly as long as the op reads or writes.
pub struct CollectiveIo<'a> {
    _guards: Vec<DeviceAccess<'a>>,
    send: Option<HostSpan>,
    recv: Option<HostSpan>,
}

// SAFETY: the spans point into allocations kept alive and under device
// access by `_guards`; the struct is only moved, never shared, between
// threads while a collective runs.
unsafe impl Send for CollectiveIo<'_> {}

impl<'a> CollectiveIo<'a> {
    /// Resolves a checked range to host memory.
    fn span(
        guards: &mut Vec<DeviceAccess<'a>>,
        range: Option<CollectiveRange<'a>>,
        what: &str,
    ) -> Result<Option<HostSpan>> {
        let Some(CollectiveRange {
            binding,
            bytes: needed,
        }) = range
        else {
            return Ok(None);
        };
        let buffer: &'a Buffer = binding.buffer;
        let access = buffer.begin_device_access()?;
        let start = buffer.byte_offset() + binding.offset;
        if start + needed > access.len() as u64 {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!("collective {what} range exceeds its allocation"),
            ));
        }
        // In bounds: checked against the allocation just above.
        let ptr = access.base_ptr().wrapping_add(start as usize);
        guards.push(access);
        Ok(Some(HostSpan {
            ptr,
            len: needed as usize,
        }))
    }

    /// The send range (when the op reads one on this rank).
    pub fn send(&self) -> Option<&HostSpan> {
        self.send.as_ref()
    }

    /// The receive range (when the op writes one on this rank).
    pub fn recv(&self) -> Option<&HostSpan> {
        self.recv.as_ref()
    }

    fn need<'s>(span: &'s Option<HostSpan>, what: &str) -> Result<&'s HostSpan> {
        span.as_ref().ok_or_else(|| {
            Status::new(
                StatusCode::Internal,
                format!("collective has no {what} range"),
            )
        })
    }

    /// A copy of the first `len` send bytes.
    pub fn send_to_vec(&self, len: usize) -> Result<Vec<u8>> {
        let send = Self::need(&self.send, "send")?;
        let len = len.min(send.len);
        let mut out = vec![0u8; len];
        // SAFETY: `send` is `send.len` readable bytes held under device
        // access, and `out` is a fresh allocation of `len <= send.len`.
        unsafe { std::ptr::copy_nonoverlapping(send.ptr, out.as_mut_ptr(), len) };
        Ok(out)
    }

    /// Writes `data` at `offset` of the receive range.
    pub fn write_recv(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        let recv = Self::need(&self.recv, "receive")?;
        if offset + data.len() > recv.len {
            return Err(Status::new(
                StatusCode::OutOfRange,
                "collective result exceeds its receive range",
            ));
        }
        // SAFETY: in bounds of the receive range (checked above), which is
        // writable memory under device access; `data` is a separate Rust
        // allocation or borrow, so the ranges cannot overlap.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), recv.ptr.add(offset), data.len()) };
        Ok(())
    }

    /// Copies the first `len` send bytes to offset `offset` of the receive
    /// range (the ranges may overlap: in-place collectives).
    pub fn copy_send_to_recv(&mut self, offset: usize, len: usize) -> Result<()> {
        let send = Self::need(&self.send, "send")?;
        let recv = Self::need(&self.recv, "receive")?;
        if len > send.len || offset + len > recv.len {
            return Err(Status::new(
                StatusCode::OutOfRange,
                "collective copy exceeds its ranges",
            ));
        }
        // SAFETY: both ranges are in bounds (checked above) and under device
        // access; `copy` allows them to overlap.
        unsafe { std::ptr::copy(send.ptr, recv.ptr.add(offset), len) };
        Ok(())
    }

    /// Zeroes the receive range.
    pub fn zero_recv(&mut self) -> Result<()> {
        let recv = Self::need(&self.recv, "receive")?;
        // SAFETY: the receive range is `recv.len` writable bytes under
        // device access.
        unsafe { std::ptr::write_bytes(recv.ptr, 0, recv.len) };
        Ok(())
    }

    /// Divides the `count` elements at the start of the receive range by
    /// `divisor` (the average after a sum).
    pub fn divide_recv(&mut self, ty: CollectiveElementType, divisor: u64) -> Result<()> {
        let recv = Self::need(&self.recv, "receive")?;
        // SAFETY: the receive range is `recv.len` writable bytes under
        // device access, and nothing else refers to it during this call.
        let bytes = unsafe { std::slice::from_raw_parts_mut(recv.ptr, recv.len) };
        divide_elements(ty, bytes, divisor);
        Ok(())
    }
}

/// Validates `collective` on `channel` and runs it over `send` and `recv`
/// (resolved bindings, either absent where the op does not use it).
pub fn run_collective(
    channel: &dyn Channel,
    collective: &Collective,
    send: Option<BufferBinding<'_>>,
    recv: Option<BufferBinding<'_>>,
) -> Result<()> {
    let (send, recv) = collective.checked_ranges(channel.rank(), channel.count(), send, recv)?;
    let mut guards = Vec::with_capacity(2);
    let send = CollectiveIo::span(&mut guards, send, "send")?;
    let recv = CollectiveIo::span(&mut guards, recv, "receive")?;
    let mut io = CollectiveIo {
        _guards: guards,
        send,
        recv,
    };
    let _span = tracing::enabled!(tracing::Level::DEBUG).then(|| {
        tracing::debug_span!(
            "hal.channel.collective",
            provider = channel.provider(),
            kind = ?collective.op.kind,
            elements = collective.element_count
        )
        .entered()
    });
    channel
        .run(collective, &mut io)
        .map_err(|status| status.annotate(collective.describe(channel)))
}

/// Creates the channel a host-memory device offers for `params`: an MPI
/// communicator when the process runs under an MPI launcher or already
/// initialised MPI, else rank 0 of 1 ([`LocalChannel`]).
pub fn create_host_channel(params: &ChannelParams) -> Result<Arc<dyn Channel>> {
    params.validate()?;
    if mpi::wanted() {
        return mpi_default_channel(params);
    }
    match (params.rank, params.count) {
        (RANK_DEFAULT, COUNT_DEFAULT) | (0, 1) => Ok(Arc::new(LocalChannel::new())),
        (rank, count) => Err(Status::new(
            StatusCode::Unavailable,
            format!(
                "a channel of {count} ranks (rank {rank}) needs the process to run under an MPI launcher (mpirun -n {count} ...)"
            ),
        )),
    }
}

/// The MPI job's default channel ([`mpi::default_channel`]) for a process
/// that [`mpi::wanted`] MPI, checked against the rank and count `params`
/// give (when they are not defaulted).
pub fn mpi_default_channel(params: &ChannelParams) -> Result<Arc<dyn Channel>> {
    let channel = mpi::default_channel()?;
    let (rank, count) = (channel.rank(), channel.count());
    if params.count != COUNT_DEFAULT && (params.rank, params.count) != (rank, count) {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "channel requested as rank {} of {} but this process is rank {rank} of {count} of its MPI job",
                params.rank, params.count
            ),
        ));
    }
    Ok(channel)
}

/// Rank 0 of 1: collectives are local copies; sends wait in a queue for
/// the receive that takes them.
#[derive(Default)]
pub struct LocalChannel {
    mailbox: Mutex<VecDeque<Vec<u8>>>,
}

impl LocalChannel {
    /// A channel of one rank.
    pub fn new() -> LocalChannel {
        LocalChannel::default()
    }

    fn receive(&self, io: &mut CollectiveIo<'_>, len: usize) -> Result<()> {
        let message = self.mailbox.lock().pop_front().ok_or_else(|| {
            Status::new(
                StatusCode::FailedPrecondition,
                "receive from rank 0 with no matching send (a one-rank channel cannot wait for one)",
            )
        })?;
        if message.len() != len {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "received {} bytes where {len} were expected (sizes differ between send and receive)",
                    message.len()
                ),
            ));
        }
        io.write_recv(0, &message)
    }
}

impl Channel for LocalChannel {
    fn provider(&self) -> &str {
        "local"
    }

    fn rank(&self) -> i32 {
        0
    }

    fn count(&self) -> i32 {
        1
    }

    fn split(&self, color: i32, _key: i32, _flags: u64) -> Result<Option<Arc<dyn Channel>>> {
        Ok((color != NO_COLOR).then(|| Arc::new(LocalChannel::new()) as Arc<dyn Channel>))
    }

    fn run(&self, collective: &Collective, io: &mut CollectiveIo<'_>) -> Result<()> {
        let len = collective.byte_count() as usize;
        use CollectiveKind::*;
        match collective.op.kind {
            // One rank: every result is this rank's own elements (the
            // average of one value is the value).
            AllGather | AllReduce | AllToAll | ReduceScatter | Reduce => {
                io.copy_send_to_recv(0, len)
            }
            // The root's receive range is optional.
            Broadcast => match io.recv.is_some() && io.send.is_some() {
                true => io.copy_send_to_recv(0, len),
                false => Ok(()),
            },
            Send => {
                let data = io.send_to_vec(len)?;
                self.mailbox.lock().push_back(data);
                Ok(())
            }
            Recv => self.receive(io, len),
            SendRecv => match collective.send_recv_peers(1)? {
                (Some(_), Some(_)) => io.copy_send_to_recv(0, len),
                (Some(_), None) => {
                    let data = io.send_to_vec(len)?;
                    self.mailbox.lock().push_back(data);
                    io.zero_recv()
                }
                (None, Some(_)) => self.receive(io, len),
                (None, None) => io.zero_recv(),
            },
        }
    }
}

/// Divides every element of `bytes` (little-endian `ty`) by `divisor`.
pub fn divide_elements(ty: CollectiveElementType, bytes: &mut [u8], divisor: u64) {
    macro_rules! each {
        ($t:ty, |$v:ident| $e:expr) => {
            for chunk in bytes.chunks_exact_mut(std::mem::size_of::<$t>()) {
                let $v = <$t>::from_le_bytes(chunk.try_into().expect("chunk size"));
                chunk.copy_from_slice(&($e).to_le_bytes());
            }
        };
    }
    use CollectiveElementType::*;
    let d = divisor.max(1);
    match ty {
        Sint8 => each!(i8, |v| (v as i64 / d as i64) as i8),
        Uint8 => each!(u8, |v| (v as u64 / d) as u8),
        Sint16 => each!(i16, |v| (v as i64 / d as i64) as i16),
        Uint16 => each!(u16, |v| (v as u64 / d) as u16),
        Sint32 => each!(i32, |v| (v as i64 / d as i64) as i32),
        Uint32 => each!(u32, |v| (v as u64 / d) as u32),
        Sint64 => each!(i64, |v| v / d as i64),
        Uint64 => each!(u64, |v| v / d),
        Float16 => each!(u16, |v| f32_to_f16(f16_to_f32(v) / d as f32)),
        BFloat16 => each!(u16, |v| f32_to_bf16(bf16_to_f32(v) / d as f32)),
        Float32 => each!(f32, |v| v / d as f32),
        Float64 => each!(f64, |v| v / d as f64),
    }
}

/// Reduces `parts` contributions (`gathered` holds them back to back, rank
/// order, each `out.len()` bytes) into `out` with `reduction` (average:
/// the sum divided by `parts`). 16-bit floats accumulate in `f32` and are
/// rounded once, so the result does not depend on the rank count's
/// intermediate roundings; integers wrap as MPI's do.
pub fn reduce_gathered(
    ty: CollectiveElementType,
    reduction: Reduction,
    gathered: &[u8],
    parts: usize,
    out: &mut [u8],
) -> Result<()> {
    let len = out.len();
    if gathered.len() != len * parts || parts == 0 {
        return Err(Status::new(
            StatusCode::Internal,
            "gathered contributions do not match the result size",
        ));
    }
    macro_rules! reduce {
        ($t:ty, $acc:ty, $load:expr, $store:expr, $add:expr, $mul:expr, $div:expr) => {{
            let width = std::mem::size_of::<$t>();
            let load = $load;
            let store = $store;
            for (index, slot) in out.chunks_exact_mut(width).enumerate() {
                let value = |part: usize| -> $acc {
                    let at = part * len + index * width;
                    load(<$t>::from_le_bytes(
                        gathered[at..at + width].try_into().expect("chunk size"),
                    ))
                };
                let mut acc = value(0);
                for part in 1..parts {
                    let v = value(part);
                    acc = match reduction {
                        Reduction::Sum | Reduction::Average | Reduction::None => $add(acc, v),
                        Reduction::Product => $mul(acc, v),
                        Reduction::Minimum => {
                            if v < acc {
                                v
                            } else {
                                acc
                            }
                        }
                        Reduction::Maximum => {
                            if v > acc {
                                v
                            } else {
                                acc
                            }
                        }
                    };
                }
                if reduction == Reduction::Average {
                    acc = $div(acc, parts);
                }
                let stored: $t = store(acc);
                slot.copy_from_slice(&stored.to_le_bytes());
            }
        }};
    }
    macro_rules! int {
        ($t:ty) => {
            reduce!(
                $t,
                $t,
                |v: $t| v,
                |v: $t| v,
                |a: $t, b: $t| a.wrapping_add(b),
                |a: $t, b: $t| a.wrapping_mul(b),
                |a: $t, n: usize| a / (n as $t)
            )
        };
    }
    macro_rules! float {
        ($t:ty, $acc:ty, $load:expr, $store:expr) => {
            reduce!(
                $t,
                $acc,
                $load,
                $store,
                |a: $acc, b: $acc| a + b,
                |a: $acc, b: $acc| a * b,
                |a: $acc, n: usize| a / n as $acc
            )
        };
    }
    use CollectiveElementType::*;
    match ty {
        Sint8 => int!(i8),
        Uint8 => int!(u8),
        Sint16 => int!(i16),
        Uint16 => int!(u16),
        Sint32 => int!(i32),
        Uint32 => int!(u32),
        Sint64 => int!(i64),
        Uint64 => int!(u64),
        Float16 => float!(u16, f32, f16_to_f32, f32_to_f16),
        BFloat16 => float!(u16, f32, bf16_to_f32, f32_to_bf16),
        Float32 => float!(f32, f32, |v: f32| v, |v: f32| v),
        Float64 => float!(f64, f64, |v: f64| v, |v: f64| v),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::{BufferUsage, MemoryAccess, MemoryType};

    fn buffer(bytes: &[u8]) -> Buffer {
        let b = Buffer::allocate_host(
            bytes.len() as u64,
            MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE,
            BufferUsage::DEFAULT,
            MemoryAccess::ALL,
        )
        .unwrap();
        b.write(0, bytes).unwrap();
        b
    }

    fn binding(b: &Buffer) -> BufferBinding<'_> {
        BufferBinding {
            buffer: b,
            offset: 0,
            length: b.byte_length(),
        }
    }

    fn op(kind: u8, reduction: u8, ty: u8) -> CollectiveOp {
        CollectiveOp::from_packed(u32::from_le_bytes([kind, reduction, ty, 0])).unwrap()
    }

    #[test]
    fn ops_decode_and_reject_bad_values() {
        let o = op(1, 5, 11);
        assert_eq!(o.kind, CollectiveKind::AllReduce);
        assert_eq!(o.reduction, Reduction::Average);
        assert_eq!(o.element_type, CollectiveElementType::BFloat16);
        assert!(CollectiveOp::from_packed(9).is_err());
        assert!(CollectiveOp::from_packed(u32::from_le_bytes([0, 6, 0, 0])).is_err());
        assert!(CollectiveOp::from_packed(u32::from_le_bytes([0, 0, 12, 0])).is_err());
        // all_reduce without a reduction
        assert!(CollectiveOp::from_packed(1).is_err());
    }

    #[test]
    fn one_rank_collectives_are_copies() {
        let channel = LocalChannel::new();
        let src = buffer(&[1, 2, 3, 4]);
        let dst = buffer(&[0; 4]);
        let c = Collective {
            op: op(1, 1, 9),
            param: 0,
            element_count: 1,
        };
        run_collective(&channel, &c, Some(binding(&src)), Some(binding(&dst))).unwrap();
        let mut out = [0u8; 4];
        dst.read(0, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4]);
        // Too small a receive range.
        let c2 = Collective {
            element_count: 2,
            ..c
        };
        assert!(run_collective(&channel, &c2, Some(binding(&src)), Some(binding(&dst))).is_err());
        // Send then receive through the mailbox; a lone receive fails.
        let send = Collective {
            op: op(6, 0, 1),
            param: 0,
            element_count: 4,
        };
        let recv = Collective {
            op: op(7, 0, 1),
            ..send
        };
        let dst2 = buffer(&[0; 4]);
        run_collective(&channel, &send, Some(binding(&src)), None).unwrap();
        run_collective(&channel, &recv, None, Some(binding(&dst2))).unwrap();
        dst2.read(0, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4]);
        assert!(run_collective(&channel, &recv, None, Some(binding(&dst2))).is_err());
        // A root out of range.
        let bcast = Collective {
            op: op(3, 0, 1),
            param: 1,
            element_count: 4,
        };
        assert!(run_collective(&channel, &bcast, Some(binding(&src)), None).is_err());
        assert!(channel.split(NO_COLOR, 0, 0).unwrap().is_none());
        assert_eq!(channel.split(3, 0, 0).unwrap().unwrap().count(), 1);
    }

    #[test]
    fn half_reductions_accumulate_in_f32() {
        let parts: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|v| f32_to_f16(*v).to_le_bytes())
            .collect();
        let mut out = [0u8; 2];
        for (reduction, expected) in [
            (Reduction::Sum, 10.0),
            (Reduction::Product, 24.0),
            (Reduction::Minimum, 1.0),
            (Reduction::Maximum, 4.0),
            (Reduction::Average, 2.5),
        ] {
            reduce_gathered(
                CollectiveElementType::Float16,
                reduction,
                &parts,
                4,
                &mut out,
            )
            .unwrap();
            assert_eq!(f16_to_f32(u16::from_le_bytes(out)), expected);
        }
        let mut v = 7i32.to_le_bytes();
        divide_elements(CollectiveElementType::Sint32, &mut v, 2);
        assert_eq!(i32::from_le_bytes(v), 3);
    }

    #[test]
    fn params_are_checked() {
        assert!(ChannelParams::from_environment().validate().is_ok());
        let p = |rank, count| ChannelParams {
            rank,
            count,
            ..Default::default()
        };
        assert!(p(0, 1).validate().is_ok());
        assert!(p(1, 1).validate().is_err());
        assert!(p(-1, 2).validate().is_err());
        assert!(p(0, 0).validate().is_err());
    }
}
