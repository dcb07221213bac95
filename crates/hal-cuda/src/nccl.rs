//! Collective channels over NCCL, with `libnccl.so.2` loaded at run time.
//!
//! # Finding NCCL
//! The library is `$IREE_NCCL_LIBRARY` when set, else `libnccl.so.2` found
//! through the loader path (`LD_LIBRARY_PATH`: the `lib` folder of the
//! `nvidia-nccl-cu13` wheel works). Its entry points are resolved once into
//! one table ([`Nccl`]); `ncclCommSplit` (NCCL 2.18) and `ncclGetLastError`
//! are optional. NCCL 2.10 or newer is required (`ncclAvg`, `bf16`).
//! Without the library, creating a channel fails with UNAVAILABLE naming it.
//!
//! # Bootstrapping
//! A communicator is made from a 128-byte `ncclUniqueId` and this rank's
//! place in the group ([`NcclChannel::create`]):
//! - an id in the channel parameters is used as given, with the given rank
//!   and count (defaulted: the MPI job's, or rank 0 of 1 outside one);
//! - otherwise, under an MPI launcher ([`iree_hal::channel::mpi::wanted`]),
//!   rank 0 makes the id and MPI broadcasts it to the job;
//! - otherwise creation fails with INVALID_ARGUMENT, as upstream's CUDA
//!   device without a channel provider does (a single process makes its
//!   own id with [`Nccl::unique_id`] and passes it, rank 0 of 1).
//!
//! # Collectives
//! The backend's `collective` hook hands each collective of a command
//! buffer to `NcclChannel::issue`, which enqueues it on the CUDA device's
//! stream over device addresses, in order with the dispatches around it
//! (the GPU device checks the ranges first, as the host path does).
//! Reductions use NCCL's own types and operations (16-bit integers have
//! none: UNIMPLEMENTED); the ops that only move data move bytes, so every
//! element type works for them. `all_to_all` and `send_recv` are grouped
//! sends and receives. Channels run nothing over host memory: their
//! [`Channel::run`] answers UNIMPLEMENTED.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::null_mut;
use std::sync::{Arc, OnceLock};

use iree_base::{Result, Status, StatusCode};
use iree_hal::channel::{
    mpi, mpi_default_channel, Collective, CollectiveElementType, CollectiveIo, CollectiveKind,
    Reduction, COUNT_DEFAULT, NO_COLOR,
};
use iree_hal::{Channel, ChannelParams};
use libloading::Library;
use parking_lot::Mutex;

use crate::ffi::{CuDevice, CuHandle, PrimaryContext, Symbols as CudaSymbols};

/// The library opened when `IREE_NCCL_LIBRARY` is unset.
pub const LIBRARY_NAME: &str = "libnccl.so.2";
/// The environment variable naming another NCCL library file.
pub const LIBRARY_VARIABLE: &str = "IREE_NCCL_LIBRARY";
/// The oldest `ncclGetVersion` code accepted (2.10.0).
pub const MIN_VERSION: c_int = 21000;

/// `ncclResult_t`.
pub type NcclResult = c_int;
/// `ncclComm_t`: an opaque communicator.
pub type NcclComm = *mut c_void;

/// `ncclSuccess`.
pub const NCCL_SUCCESS: NcclResult = 0;

/// `ncclUniqueId`: the opaque 128 bytes every rank of a group shares.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct NcclUniqueId {
    /// The id's bytes.
    pub internal: [u8; ID_BYTES],
}

/// The size of an [`NcclUniqueId`] (`NCCL_UNIQUE_ID_BYTES`).
pub const ID_BYTES: usize = 128;

/// `ncclDataType_t` (the values NCCL 2.10+ defines for our types).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    /// `ncclInt8`.
    Int8 = 0,
    /// `ncclUint8`.
    Uint8 = 1,
    /// `ncclInt32`.
    Int32 = 2,
    /// `ncclUint32`.
    Uint32 = 3,
    /// `ncclInt64`.
    Int64 = 4,
    /// `ncclUint64`.
    Uint64 = 5,
    /// `ncclFloat16`.
    Float16 = 6,
    /// `ncclFloat32`.
    Float32 = 7,
    /// `ncclFloat64`.
    Float64 = 8,
    /// `ncclBfloat16`.
    Bfloat16 = 9,
}

impl DataType {
    /// The NCCL type reductions of `ty` use; `None` for 16-bit integers,
    /// which NCCL cannot reduce.
    pub fn of(ty: CollectiveElementType) -> Option<DataType> {
        use CollectiveElementType::*;
        Some(match ty {
            Sint8 => DataType::Int8,
            Uint8 => DataType::Uint8,
            Sint16 | Uint16 => return None,
            Sint32 => DataType::Int32,
            Uint32 => DataType::Uint32,
            Sint64 => DataType::Int64,
            Uint64 => DataType::Uint64,
            Float16 => DataType::Float16,
            Float32 => DataType::Float32,
            Float64 => DataType::Float64,
            BFloat16 => DataType::Bfloat16,
        })
    }
}

/// `ncclRedOp_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    /// `ncclSum`.
    Sum = 0,
    /// `ncclProd`.
    Prod = 1,
    /// `ncclMax`.
    Max = 2,
    /// `ncclMin`.
    Min = 3,
    /// `ncclAvg` (NCCL 2.10).
    Avg = 4,
}

impl RedOp {
    /// NCCL's operation for `reduction` (`None`: the op does not reduce).
    pub fn of(reduction: Reduction) -> Option<RedOp> {
        Some(match reduction {
            Reduction::None => return None,
            Reduction::Sum => RedOp::Sum,
            Reduction::Product => RedOp::Prod,
            Reduction::Minimum => RedOp::Min,
            Reduction::Maximum => RedOp::Max,
            Reduction::Average => RedOp::Avg,
        })
    }
}

macro_rules! nccl_symbols {
    (
        required { $($(#[$doc:meta])* $name:ident: fn($($arg:ty),* $(,)?) -> $ret:ty;)* }
        optional { $($(#[$odoc:meta])* $oname:ident: fn($($oarg:ty),* $(,)?) -> $oret:ty;)* }
    ) => {
        /// The resolved NCCL entry points (optional ones `None` when the
        /// library predates them).
        #[allow(non_snake_case)]
        pub struct Entries {
            $($(#[$doc])* pub $name: unsafe extern "C" fn($($arg),*) -> $ret,)*
            $($(#[$odoc])* pub $oname: Option<unsafe extern "C" fn($($oarg),*) -> $oret>,)*
        }

        impl Entries {
            /// Resolves every entry point; the first missing required one
            /// is the error.
            fn resolve(library: &Library) -> std::result::Result<Entries, String> {
                Ok(Entries {
                    $($name: {
                        // SAFETY: `$name` is the NCCL API function of that
                        // name; the declared type is its C signature in
                        // `nccl.h` (NCCL 2.10 and later).
                        let symbol = unsafe {
                            library.get::<unsafe extern "C" fn($($arg),*) -> $ret>(
                                concat!(stringify!($name), "\0").as_bytes(),
                            )
                        }
                        .map_err(|e| format!("{}: {e}", stringify!($name)))?;
                        *symbol
                    },)*
                    $($oname: {
                        // SAFETY: as above; a library without the symbol
                        // leaves the entry `None`.
                        let symbol = unsafe {
                            library.get::<unsafe extern "C" fn($($oarg),*) -> $oret>(
                                concat!(stringify!($oname), "\0").as_bytes(),
                            )
                        };
                        symbol.ok().map(|s| *s)
                    },)*
                })
            }
        }
    };
}

nccl_symbols! {
    required {
        /// `ncclGetVersion`.
        ncclGetVersion: fn(*mut c_int) -> NcclResult;
        /// `ncclGetUniqueId`.
        ncclGetUniqueId: fn(*mut NcclUniqueId) -> NcclResult;
        /// `ncclCommInitRank` (the id is passed by value).
        ncclCommInitRank: fn(*mut NcclComm, c_int, NcclUniqueId, c_int) -> NcclResult;
        /// `ncclCommDestroy`.
        ncclCommDestroy: fn(NcclComm) -> NcclResult;
        /// `ncclCommAbort`.
        ncclCommAbort: fn(NcclComm) -> NcclResult;
        /// `ncclCommCount`.
        ncclCommCount: fn(NcclComm, *mut c_int) -> NcclResult;
        /// `ncclCommUserRank`.
        ncclCommUserRank: fn(NcclComm, *mut c_int) -> NcclResult;
        /// `ncclGetErrorString`.
        ncclGetErrorString: fn(NcclResult) -> *const c_char;
        /// `ncclAllReduce`.
        ncclAllReduce: fn(*const c_void, *mut c_void, usize, DataType, RedOp, NcclComm, CuHandle) -> NcclResult;
        /// `ncclBroadcast`.
        ncclBroadcast: fn(*const c_void, *mut c_void, usize, DataType, c_int, NcclComm, CuHandle) -> NcclResult;
        /// `ncclReduce`.
        ncclReduce: fn(*const c_void, *mut c_void, usize, DataType, RedOp, c_int, NcclComm, CuHandle) -> NcclResult;
        /// `ncclAllGather` (the count is per rank).
        ncclAllGather: fn(*const c_void, *mut c_void, usize, DataType, NcclComm, CuHandle) -> NcclResult;
        /// `ncclReduceScatter` (the count is per rank).
        ncclReduceScatter: fn(*const c_void, *mut c_void, usize, DataType, RedOp, NcclComm, CuHandle) -> NcclResult;
        /// `ncclSend`.
        ncclSend: fn(*const c_void, usize, DataType, c_int, NcclComm, CuHandle) -> NcclResult;
        /// `ncclRecv`.
        ncclRecv: fn(*mut c_void, usize, DataType, c_int, NcclComm, CuHandle) -> NcclResult;
        /// `ncclGroupStart`.
        ncclGroupStart: fn() -> NcclResult;
        /// `ncclGroupEnd`.
        ncclGroupEnd: fn() -> NcclResult;
    }
    optional {
        /// `ncclCommSplit` (NCCL 2.18).
        ncclCommSplit: fn(NcclComm, c_int, c_int, *mut NcclComm, *mut c_void) -> NcclResult;
        /// `ncclGetLastError` (NCCL 2.13).
        ncclGetLastError: fn(NcclComm) -> *const c_char;
    }
}

/// The loaded library: its entry points (through `Deref`) and version.
pub struct Nccl {
    entries: Entries,
    library_name: String,
    version: c_int,
    /// Keeps the library mapped while the entry points are in use.
    _library: Library,
}

impl std::ops::Deref for Nccl {
    type Target = Entries;
    fn deref(&self) -> &Entries {
        &self.entries
    }
}

static NCCL: OnceLock<Result<Arc<Nccl>>> = OnceLock::new();

impl Nccl {
    /// The process's NCCL, loaded on first use; UNAVAILABLE naming
    /// `libnccl.so.2` when it cannot be loaded (the same error every time).
    pub fn get() -> Result<Arc<Nccl>> {
        NCCL.get_or_init(Nccl::load).clone()
    }

    fn load() -> Result<Arc<Nccl>> {
        let name = match std::env::var(LIBRARY_VARIABLE) {
            Ok(path) if !path.is_empty() => path,
            _ => LIBRARY_NAME.to_string(),
        };
        // SAFETY: loading NCCL runs its initializers, which have no
        // preconditions on this process.
        let library = unsafe { Library::new(&name) }.map_err(|e| {
            Status::new(
                StatusCode::Unavailable,
                format!(
                    "NCCL library '{LIBRARY_NAME}' not available; install NCCL 2.10 or newer (for example the nvidia-nccl-cu13 wheel, with its lib folder on LD_LIBRARY_PATH) or set {LIBRARY_VARIABLE} to its path (tried {name}: {e})"
                ),
            )
        })?;
        let entries = Entries::resolve(&library).map_err(|missing| {
            Status::new(
                StatusCode::Unavailable,
                format!("NCCL library '{name}' is missing {missing}"),
            )
        })?;
        let mut nccl = Nccl {
            entries,
            library_name: name,
            version: 0,
            _library: library,
        };
        let mut version: c_int = 0;
        // SAFETY: `version` is a valid out-parameter.
        let result = unsafe { (nccl.ncclGetVersion)(&mut version) };
        nccl.check(result, "ncclGetVersion")?;
        if version < MIN_VERSION {
            return Err(Status::new(
                StatusCode::Unavailable,
                format!(
                    "NCCL library '{}' is version {version}; 2.10 ({MIN_VERSION}) or newer is required",
                    nccl.library_name
                ),
            ));
        }
        nccl.version = version;
        tracing::debug!(library = &*nccl.library_name, version, "NCCL loaded");
        Ok(Arc::new(nccl))
    }

    /// `ncclGetVersion`'s code (`22703` for 2.27.3).
    pub fn version(&self) -> i32 {
        self.version
    }

    /// An NCCL result as a status naming the call, with NCCL's text for
    /// the code and its last error message when it has one.
    pub fn check(&self, result: NcclResult, call: &str) -> Result<()> {
        if result == NCCL_SUCCESS {
            return Ok(());
        }
        let text = |ptr: *const c_char| {
            (!ptr.is_null()).then(|| {
                // SAFETY: NCCL returns null or a NUL-terminated string that
                // stays valid until its next error.
                unsafe { CStr::from_ptr(ptr) }
                    .to_string_lossy()
                    .into_owned()
            })
        };
        // SAFETY: callable with any result code.
        let meaning = text(unsafe { (self.ncclGetErrorString)(result) })
            .unwrap_or_else(|| "unknown NCCL error".to_string());
        // SAFETY: the communicator argument is unused and may be null.
        let last = self
            .ncclGetLastError
            .and_then(|f| text(unsafe { f(null_mut()) }))
            .filter(|s| !s.is_empty())
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        let code = match result {
            // ncclInvalidArgument, ncclInvalidUsage.
            4 | 5 => StatusCode::InvalidArgument,
            // ncclSystemError, ncclRemoteError.
            2 | 6 => StatusCode::Unavailable,
            _ => StatusCode::Internal,
        };
        Err(Status::new(
            code,
            format!("NCCL error {result}: {meaning}{last}; while calling {call}"),
        ))
    }

    /// A fresh id (`ncclGetUniqueId`).
    pub fn unique_id(&self) -> Result<NcclUniqueId> {
        let mut id = NcclUniqueId {
            internal: [0; ID_BYTES],
        };
        // SAFETY: `id` is a valid out-parameter of the declared size.
        let result = unsafe { (self.ncclGetUniqueId)(&mut id) };
        self.check(result, "ncclGetUniqueId")?;
        Ok(id)
    }
}

/// A communicator handle that may cross threads: the channel serializes
/// its use.
struct Comm(NcclComm);

// SAFETY: NCCL communicators may be used from any thread, one at a time;
// `NcclChannel` serializes every use through its lock.
unsafe impl Send for Comm {}
// SAFETY: as above.
unsafe impl Sync for Comm {}

/// One rank of an NCCL communicator on one CUDA device (destroyed on drop).
pub struct NcclChannel {
    nccl: Arc<Nccl>,
    /// The device's primary context, retained while the communicator lives.
    context: PrimaryContext,
    /// Serializes use of the communicator.
    comm: Mutex<Comm>,
    rank: i32,
    count: i32,
}

impl NcclChannel {
    /// Creates this rank's communicator on `device` (see the module docs
    /// for where the id, rank and count come from).
    pub fn create(
        cuda: &Arc<CudaSymbols>,
        device: CuDevice,
        params: &ChannelParams,
    ) -> Result<Arc<dyn Channel>> {
        params.validate()?;
        let nccl = Nccl::get()?;
        let given = match params.id.len() {
            0 => None,
            ID_BYTES => {
                let mut id = NcclUniqueId {
                    internal: [0; ID_BYTES],
                };
                id.internal.copy_from_slice(&params.id);
                Some(id)
            }
            n => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                    "an NCCL channel id is the {ID_BYTES}-byte ncclUniqueId; {n} bytes were given"
                ),
                ))
            }
        };
        let (rank, count, id) = match given {
            Some(id) if params.count != COUNT_DEFAULT => (params.rank, params.count, id),
            Some(id) if mpi::wanted() => {
                let job = mpi_default_channel(params)?;
                (job.rank(), job.count(), id)
            }
            Some(id) => (0, 1, id),
            None if mpi::wanted() => {
                let job = mpi_default_channel(params)?;
                let mut id = match job.rank() {
                    0 => nccl.unique_id()?,
                    _ => NcclUniqueId {
                        internal: [0; ID_BYTES],
                    },
                };
                mpi::broadcast_bytes(&mut id.internal, 0)
                    .map_err(|e| e.annotate("while sharing the NCCL id of rank 0"))?;
                (job.rank(), job.count(), id)
            }
            // As upstream's CUDA device without a channel provider: the
            // id must come from MPI or from the caller (a single rank makes
            // one with `Nccl::unique_id`).
            None => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "default collective channel ID requested but no channel provider has been set on the device to provide it (run under an MPI launcher, or pass the group's {ID_BYTES}-byte ncclUniqueId as the channel id; rank {}, count {})",
                        params.rank, params.count
                    ),
                ))
            }
        };
        if id.internal.iter().all(|&b| b == 0) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "the NCCL channel id is all zeros",
            ));
        }
        let context = PrimaryContext::retain(cuda.clone(), device)?;
        context.make_current()?;
        let mut comm: NcclComm = null_mut();
        nccl.check(
            // SAFETY: `comm` is a valid out-parameter; the device's context
            // is current, so the communicator is made for it. Every rank of
            // the group makes this call with the same id (the caller's
            // contract).
            unsafe { (nccl.ncclCommInitRank)(&mut comm, count, id, rank) },
            "ncclCommInitRank",
        )
        .map_err(|e| e.annotate(format!("creating rank {rank} of {count}")))?;
        Ok(Arc::new(NcclChannel::new(nccl, context, comm)?))
    }

    /// Wraps a communicator made on `context`'s device, reading its rank
    /// and count.
    fn new(nccl: Arc<Nccl>, context: PrimaryContext, comm: NcclComm) -> Result<NcclChannel> {
        let mut channel = NcclChannel {
            nccl,
            context,
            comm: Mutex::new(Comm(comm)),
            rank: 0,
            count: 1,
        };
        let nccl = &channel.nccl;
        let (mut rank, mut count) = (0, 0);
        // SAFETY: `comm` is a live communicator; valid out-parameters.
        let result = unsafe { (nccl.ncclCommUserRank)(comm, &mut rank) };
        nccl.check(result, "ncclCommUserRank")?;
        // SAFETY: as above.
        let result = unsafe { (nccl.ncclCommCount)(comm, &mut count) };
        nccl.check(result, "ncclCommCount")?;
        channel.rank = rank;
        channel.count = count;
        Ok(channel)
    }

    /// The CUDA device the communicator runs on.
    pub fn device(&self) -> CuDevice {
        self.context.device()
    }

    /// Runs `calls` between `ncclGroupStart` and `ncclGroupEnd` (the end
    /// always runs, so a failed call leaves no group open).
    fn grouped(&self, calls: impl FnOnce() -> Result<()>) -> Result<()> {
        // SAFETY: no preconditions; paired with the end below.
        let result = unsafe { (self.nccl.ncclGroupStart)() };
        self.nccl.check(result, "ncclGroupStart")?;
        let issued = calls();
        // SAFETY: closes the group opened above.
        let ended = self
            .nccl
            .check(unsafe { (self.nccl.ncclGroupEnd)() }, "ncclGroupEnd");
        issued.and(ended)
    }

    /// Enqueues `collective` on `stream` of `device` (whose context is
    /// current) over device addresses `send` and `recv`, ranges already
    /// checked to hold what the op uses on this rank. `zero` clears a
    /// device range on the stream (a `send_recv` receiving nothing).
    pub(crate) fn issue(
        &self,
        device: CuDevice,
        stream: CuHandle,
        collective: &Collective,
        send: Option<u64>,
        recv: Option<u64>,
        zero: &dyn Fn(u64, u64) -> Result<()>,
    ) -> Result<()> {
        if device != self.device() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "the NCCL channel was created on CUDA device {} but the command buffer runs on device {device}",
                    self.device()
                ),
            ));
        }
        let comm = self.comm.lock();
        let comm = comm.0;
        let nccl = &*self.nccl;
        let n = self.count as usize;
        let bytes = collective.byte_count() as usize;
        let elements = collective.element_count as usize;
        let pointer =
            |address: Option<u64>| address.map_or(null_mut(), |a| a as usize as *mut c_void);
        let (s, r) = (pointer(send), pointer(recv));
        let reducing = || -> Result<(DataType, RedOp)> {
            let ty = collective.op.element_type;
            let data_type = DataType::of(ty).ok_or_else(|| {
                Status::new(
                    StatusCode::Unimplemented,
                    format!("NCCL cannot reduce {ty:?} elements (it has no 16-bit integer type)"),
                )
            })?;
            let op = RedOp::of(collective.op.reduction).ok_or_else(|| {
                Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "collective {:?} requires a reduction operation",
                        collective.op.kind
                    ),
                )
            })?;
            Ok((data_type, op))
        };
        let send_to = |data: *mut c_void, len: usize, peer: i32| {
            // SAFETY: `data` holds `len` readable device bytes (checked by
            // the caller); `comm` is live and used by this thread only.
            nccl.check(
                unsafe { (nccl.ncclSend)(data, len, DataType::Uint8, peer, comm, stream) },
                "ncclSend",
            )
        };
        let recv_from = |data: *mut c_void, len: usize, peer: i32| {
            // SAFETY: `data` holds `len` writable device bytes (checked by
            // the caller); `comm` is live and used by this thread only.
            nccl.check(
                unsafe { (nccl.ncclRecv)(data, len, DataType::Uint8, peer, comm, stream) },
                "ncclRecv",
            )
        };
        let zero_recv = || zero(recv.unwrap_or(0), bytes as u64);
        // In every call below the send and receive addresses are device
        // ranges of the lengths the op uses on this rank (checked against
        // their buffers by the GPU device), kept alive until the stream is
        // synchronized; the communicator is live and locked.
        match collective.op.kind {
            CollectiveKind::AllGather => nccl.check(
                // SAFETY: see above (per rank: `bytes / n` sent, `bytes`
                // received).
                unsafe { (nccl.ncclAllGather)(s, r, bytes / n, DataType::Uint8, comm, stream) },
                "ncclAllGather",
            ),
            CollectiveKind::AllReduce => {
                let (ty, op) = reducing()?;
                nccl.check(
                    // SAFETY: see above.
                    unsafe { (nccl.ncclAllReduce)(s, r, elements, ty, op, comm, stream) },
                    "ncclAllReduce",
                )
            }
            CollectiveKind::AllToAll => {
                let part = bytes / n;
                self.grouped(|| {
                    for peer in 0..n {
                        let offset = peer * part;
                        send_to(s.wrapping_byte_add(offset), part, peer as i32)?;
                        recv_from(r.wrapping_byte_add(offset), part, peer as i32)?;
                    }
                    Ok(())
                })
            }
            CollectiveKind::Broadcast => {
                let root = collective.param_rank(self.count)?;
                let source = if root == self.rank { s } else { r };
                nccl.check(
                    // SAFETY: see above; the root reads its send range,
                    // every rank writes its receive range.
                    unsafe {
                        (nccl.ncclBroadcast)(source, r, bytes, DataType::Uint8, root, comm, stream)
                    },
                    "ncclBroadcast",
                )
            }
            CollectiveKind::Reduce => {
                let (ty, op) = reducing()?;
                let root = collective.param_rank(self.count)?;
                nccl.check(
                    // SAFETY: see above; the receive range (null off the
                    // root) is written on the root only.
                    unsafe { (nccl.ncclReduce)(s, r, elements, ty, op, root, comm, stream) },
                    "ncclReduce",
                )
            }
            CollectiveKind::ReduceScatter => {
                let (ty, op) = reducing()?;
                nccl.check(
                    // SAFETY: see above (`n * elements` sent, `elements`
                    // received).
                    unsafe { (nccl.ncclReduceScatter)(s, r, elements, ty, op, comm, stream) },
                    "ncclReduceScatter",
                )
            }
            CollectiveKind::Send => send_to(s, bytes, collective.param_rank(self.count)?),
            CollectiveKind::Recv => recv_from(r, bytes, collective.param_rank(self.count)?),
            CollectiveKind::SendRecv => match collective.send_recv_peers(self.count)? {
                (Some(target), Some(source)) => self.grouped(|| {
                    send_to(s, bytes, target)?;
                    recv_from(r, bytes, source)
                }),
                (Some(target), None) => {
                    send_to(s, bytes, target)?;
                    zero_recv()
                }
                (None, Some(source)) => recv_from(r, bytes, source),
                (None, None) => zero_recv(),
            },
        }
    }
}

impl Drop for NcclChannel {
    fn drop(&mut self) {
        if self.context.make_current().is_ok() {
            // SAFETY: the communicator is ours and idle (every command
            // buffer using it synchronized its stream before returning).
            unsafe { (self.nccl.ncclCommDestroy)(self.comm.get_mut().0) };
        }
    }
}

impl Channel for NcclChannel {
    fn provider(&self) -> &str {
        "nccl"
    }

    fn rank(&self) -> i32 {
        self.rank
    }

    fn count(&self) -> i32 {
        self.count
    }

    fn split(&self, color: i32, key: i32, _flags: u64) -> Result<Option<Arc<dyn Channel>>> {
        let Some(split) = self.nccl.ncclCommSplit else {
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!(
                    "splitting an NCCL channel needs ncclCommSplit (NCCL 2.18 or newer); '{}' is version {}",
                    self.nccl.library_name, self.nccl.version
                ),
            ));
        };
        if color < NO_COLOR {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("channel split color {color} must be non-negative or -1 (no color)"),
            ));
        }
        self.context.make_current()?;
        let comm = self.comm.lock();
        let mut child: NcclComm = null_mut();
        self.nccl.check(
            // SAFETY: `comm` is live and locked; `child` is a valid
            // out-parameter; a null config inherits the parent's. NO_COLOR
            // is NCCL_SPLIT_NOCOLOR (-1): no communicator comes back.
            unsafe { split(comm.0, color, key, &mut child, null_mut()) },
            "ncclCommSplit",
        )?;
        if child.is_null() {
            return Ok(None);
        }
        let context = PrimaryContext::retain(self.context.symbols().clone(), self.device())?;
        Ok(Some(Arc::new(NcclChannel::new(
            self.nccl.clone(),
            context,
            child,
        )?)))
    }

    fn run(&self, collective: &Collective, _io: &mut CollectiveIo<'_>) -> Result<()> {
        Err(Status::new(
            StatusCode::Unimplemented,
            format!(
                "NCCL channels run collectives on CUDA device memory only ({:?} was given host ranges: record it in a command buffer of the CUDA device that created the channel)",
                collective.op.kind
            ),
        ))
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
