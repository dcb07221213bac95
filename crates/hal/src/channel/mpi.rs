//! Channels over MPI, with `libmpi` loaded at run time.
//!
//! # Finding and starting MPI
//! The library is `$IREE_MPI_LIBRARY` when set, else the first of
//! `libmpi.so.40` (Open MPI), `libmpi.so.12` (MPICH and its ABI family) and
//! `libmpi.so` that opens. A process uses MPI for its channels when it runs
//! under an MPI launcher (the launcher's environment: `OMPI_COMM_WORLD_SIZE`,
//! `PMIX_RANK`, `PMI_RANK`, `PMI_SIZE`, `MPI_LOCALNRANKS`) or when a loaded
//! `libmpi` reports MPI as already initialised (mpi4py imported first). If MPI
//! is initialised already it is used as it is and left to its owner;
//! otherwise it is initialised (`MPI_THREAD_MULTIPLE`: queues may run
//! collectives on worker threads) and finalised when the process exits.
//!
//! # ABIs
//! Open MPI's handles are addresses of exported objects (`ompi_mpi_comm_world`,
//! `ompi_mpi_float`, ...); MPICH-ABI libraries use fixed 32-bit integer
//! handles. Which one the library is follows from whether it exports
//! `ompi_mpi_comm_world`. Handles travel as pointer-sized integers: on the
//! LP64 targets we support an `int` argument is passed in the low half of the
//! same register or stack slot, and handles written back by the library
//! (`MPI_Comm_split`) land in the low bytes of a zeroed pointer-sized slot.
//!
//! # Errors
//! Our communicators return MPI errors (`MPI_ERRORS_RETURN`) rather than
//! aborting, so failures are statuses with MPI's message. Every collective
//! first agrees across ranks on its element count, op and parameter (a small
//! `MPI_Allreduce`), so ranks that disagree get an error instead of a hang;
//! point-to-point receives check the received size. A rank whose program
//! fails ends the whole job with [`abort_job`] (the tools call it), so no
//! rank waits forever for a peer that has gone.

use std::ffi::{c_char, c_int, c_void};
use std::sync::{Arc, OnceLock};

use iree_base::{Result, Status, StatusCode};
use libloading::Library;

use super::{
    reduce_gathered, Channel, Collective, CollectiveIo, CollectiveKind, Reduction, NO_COLOR,
};

/// An MPI handle (communicator, datatype, op, error handler) as passed.
type Handle = usize;

/// Libraries tried, in order, when `IREE_MPI_LIBRARY` is unset.
const LIBRARY_NAMES: &[&str] = &["libmpi.so.40", "libmpi.so.12", "libmpi.so"];

/// Environment variables MPI launchers set for each rank.
const LAUNCHER_VARIABLES: &[&str] = &[
    "OMPI_COMM_WORLD_SIZE",
    "PMIX_RANK",
    "PMI_RANK",
    "PMI_SIZE",
    "MPI_LOCALNRANKS",
];

const MPI_SUCCESS: c_int = 0;
const MPI_THREAD_MULTIPLE: c_int = 3;
/// `MPI_UNDEFINED` (the same in both ABIs).
const MPI_UNDEFINED: c_int = -32766;
/// The tag of our point-to-point messages.
const TAG: c_int = 0x1ee;
/// Bytes reserved for an `MPI_Status` (Open MPI's is 24, MPICH's 20).
const STATUS_WORDS: usize = 16;

macro_rules! mpi_symbols {
    ($($name:ident: fn($($arg:ty),*);)+) => {
        /// The MPI entry points this provider calls, resolved once.
        #[allow(non_snake_case)]
        struct Symbols {
            $($name: unsafe extern "C" fn($($arg),*) -> c_int,)+
        }

        impl Symbols {
            fn resolve(library: &Library) -> std::result::Result<Symbols, String> {
                Ok(Symbols {
                    $($name: {
                        // SAFETY: `$name` is the MPI standard function of
                        // that name; the declared type is its C signature
                        // with handles widened to pointer size (see the
                        // module docs on ABIs).
                        let symbol = unsafe {
                            library.get::<unsafe extern "C" fn($($arg),*) -> c_int>(
                                concat!(stringify!($name), "\0").as_bytes(),
                            )
                        }
                        .map_err(|e| format!("{}: {e}", stringify!($name)))?;
                        *symbol
                    },)+
                })
            }
        }
    };
}

mpi_symbols! {
    MPI_Initialized: fn(*mut c_int);
    MPI_Finalized: fn(*mut c_int);
    MPI_Init_thread: fn(*mut c_int, *mut c_void, c_int, *mut c_int);
    MPI_Finalize: fn();
    MPI_Abort: fn(Handle, c_int);
    MPI_Comm_rank: fn(Handle, *mut c_int);
    MPI_Comm_size: fn(Handle, *mut c_int);
    MPI_Comm_dup: fn(Handle, *mut Handle);
    MPI_Comm_split: fn(Handle, c_int, c_int, *mut Handle);
    MPI_Comm_free: fn(*mut Handle);
    MPI_Comm_set_errhandler: fn(Handle, Handle);
    MPI_Error_string: fn(c_int, *mut c_char, *mut c_int);
    MPI_Allreduce: fn(*const c_void, *mut c_void, c_int, Handle, Handle, Handle);
    MPI_Allgather: fn(*const c_void, c_int, Handle, *mut c_void, c_int, Handle, Handle);
    MPI_Alltoall: fn(*const c_void, c_int, Handle, *mut c_void, c_int, Handle, Handle);
    MPI_Bcast: fn(*mut c_void, c_int, Handle, c_int, Handle);
    MPI_Reduce: fn(*const c_void, *mut c_void, c_int, Handle, Handle, c_int, Handle);
    MPI_Reduce_scatter_block: fn(*const c_void, *mut c_void, c_int, Handle, Handle, Handle);
    MPI_Send: fn(*const c_void, c_int, Handle, c_int, c_int, Handle);
    MPI_Recv: fn(*mut c_void, c_int, Handle, c_int, c_int, Handle, *mut c_void);
    MPI_Sendrecv: fn(
        *const c_void, c_int, Handle, c_int, c_int,
        *mut c_void, c_int, Handle, c_int, c_int, Handle, *mut c_void
    );
    MPI_Get_count: fn(*const c_void, Handle, *mut c_int);
}

/// The predefined handles of one ABI.
struct Handles {
    abi: &'static str,
    comm_world: Handle,
    comm_null: Handle,
    errors_return: Handle,
    byte: Handle,
    int64: Handle,
    /// Indexed by [`CollectiveElementType`] (halves: unused, reduced here).
    types: [Handle; 12],
    /// Sum, product, minimum, maximum.
    ops: [Handle; 4],
}

impl Handles {
    /// MPICH's fixed handle values (shared by its ABI family).
    fn mpich() -> Handles {
        Handles {
            abi: "MPICH",
            comm_world: 0x4400_0000,
            comm_null: 0x0400_0000,
            errors_return: 0x5400_0001,
            byte: 0x4c00_010d,
            int64: 0x4c00_083a,
            types: [
                0x4c00_0137, // int8_t
                0x4c00_013b, // uint8_t
                0x4c00_0238, // int16_t
                0x4c00_023c, // uint16_t
                0x4c00_0439, // int32_t
                0x4c00_043d, // uint32_t
                0x4c00_083a, // int64_t
                0x4c00_083e, // uint64_t
                0x4c00_010d, // f16: moved as bytes
                0x4c00_040a, // float
                0x4c00_080b, // double
                0x4c00_010d, // bf16: moved as bytes
            ],
            ops: [0x5800_0003, 0x5800_0004, 0x5800_0002, 0x5800_0001],
        }
    }

    /// Open MPI's handles: addresses of its predefined objects.
    fn open_mpi(library: &Library) -> std::result::Result<Handles, String> {
        let address = |name: &str| -> std::result::Result<Handle, String> {
            let symbol = format!("{name}\0");
            // SAFETY: only the symbol's address is read; it is never
            // dereferenced here (MPI receives it as a handle).
            let found = unsafe { library.get::<*mut c_void>(symbol.as_bytes()) }
                .map_err(|e| format!("{name}: {e}"))?;
            Ok(*found as Handle)
        };
        let byte = address("ompi_mpi_byte")?;
        Ok(Handles {
            abi: "Open MPI",
            comm_world: address("ompi_mpi_comm_world")?,
            comm_null: address("ompi_mpi_comm_null")?,
            errors_return: address("ompi_mpi_errors_return")?,
            byte,
            int64: address("ompi_mpi_int64_t")?,
            types: [
                address("ompi_mpi_int8_t")?,
                address("ompi_mpi_uint8_t")?,
                address("ompi_mpi_int16_t")?,
                address("ompi_mpi_uint16_t")?,
                address("ompi_mpi_int32_t")?,
                address("ompi_mpi_uint32_t")?,
                address("ompi_mpi_int64_t")?,
                address("ompi_mpi_uint64_t")?,
                byte,
                address("ompi_mpi_float")?,
                address("ompi_mpi_double")?,
                byte,
            ],
            ops: [
                address("ompi_mpi_op_sum")?,
                address("ompi_mpi_op_prod")?,
                address("ompi_mpi_op_min")?,
                address("ompi_mpi_op_max")?,
            ],
        })
    }
}

/// The process's MPI: library, entry points, handles, and whether we
/// initialised it (and so finalise it at exit).
pub struct Mpi {
    symbols: Symbols,
    handles: Handles,
    library_name: String,
    initialized_here: bool,
    world_rank: i32,
    world_size: i32,
    /// Our duplicate of `MPI_COMM_WORLD` (errors returned), made once.
    default_channel: OnceLock<Result<Arc<MpiChannel>>>,
    _library: Library,
}

static MPI: OnceLock<Result<Arc<Mpi>>> = OnceLock::new();

/// Whether channels of this process should use MPI: under a launcher, or
/// with MPI already initialised by a library loaded before us.
pub fn wanted() -> bool {
    if LAUNCHER_VARIABLES
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        return true;
    }
    if let Some(Ok(_)) = MPI.get() {
        return true;
    }
    already_initialized_elsewhere()
}

/// Whether a `libmpi` already in the process reports MPI initialised
/// (without loading one that is not).
fn already_initialized_elsewhere() -> bool {
    #[cfg(unix)]
    {
        use libloading::os::unix::{Library as UnixLibrary, RTLD_LAZY};
        const RTLD_NOLOAD: c_int = 4;
        let names = library_names();
        for name in &names {
            // SAFETY: RTLD_NOLOAD opens only a library already loaded, whose
            // initialisers have therefore run.
            let Ok(library) = (unsafe { UnixLibrary::open(Some(name), RTLD_LAZY | RTLD_NOLOAD) })
            else {
                continue;
            };
            // SAFETY: `MPI_Initialized` has this signature in every MPI and
            // may be called at any time.
            let Ok(initialized) = (unsafe {
                library.get::<unsafe extern "C" fn(*mut c_int) -> c_int>(b"MPI_Initialized\0")
            }) else {
                continue;
            };
            let mut flag: c_int = 0;
            // SAFETY: `flag` is a valid out-parameter.
            if unsafe { initialized(&mut flag) } == MPI_SUCCESS && flag != 0 {
                return true;
            }
        }
        false
    }
    #[cfg(not(unix))]
    {
        false
    }
}

fn library_names() -> Vec<String> {
    match std::env::var("IREE_MPI_LIBRARY") {
        Ok(path) if !path.is_empty() => vec![path],
        _ => LIBRARY_NAMES.iter().map(|s| s.to_string()).collect(),
    }
}

/// The process's MPI, loaded and initialised on first use; UNAVAILABLE
/// naming the library when it cannot be loaded.
pub fn get() -> Result<Arc<Mpi>> {
    MPI.get_or_init(Mpi::load).clone()
}

extern "C" {
    fn atexit(callback: extern "C" fn()) -> c_int;
}

/// Finalises MPI at process exit when we initialised it.
extern "C" fn finalize_at_exit() {
    if let Some(Ok(mpi)) = MPI.get() {
        if mpi.initialized_here && !mpi.finalized() {
            // SAFETY: MPI was initialised by us and not finalised; no
            // collective can be in flight at exit.
            unsafe { (mpi.symbols.MPI_Finalize)() };
        }
    }
}

impl Mpi {
    fn load() -> Result<Arc<Mpi>> {
        let names = library_names();
        let mut errors = Vec::new();
        let mut found = None;
        for name in &names {
            // SAFETY: loading libmpi runs its initialisers, which have no
            // preconditions on this process.
            match unsafe { Library::new(name) } {
                Ok(library) => {
                    found = Some((name.clone(), library));
                    break;
                }
                Err(e) => errors.push(format!("{name}: {e}")),
            }
        }
        let Some((library_name, library)) = found else {
            return Err(Status::new(
                StatusCode::Unavailable,
                format!(
                    "MPI library 'libmpi.so' not available; install Open MPI or MPICH, or set IREE_MPI_LIBRARY to its path (tried {})",
                    errors.join("; ")
                ),
            ));
        };
        let unavailable = |what: String| {
            Status::new(
                StatusCode::Unavailable,
                format!("MPI library '{library_name}' is missing {what}"),
            )
        };
        let symbols = Symbols::resolve(&library).map_err(unavailable)?;
        // SAFETY: only the presence of the symbol is checked.
        let is_open_mpi = unsafe { library.get::<*mut c_void>(b"ompi_mpi_comm_world\0") }.is_ok();
        let handles = if is_open_mpi {
            Handles::open_mpi(&library).map_err(unavailable)?
        } else {
            Handles::mpich()
        };
        let mut mpi = Mpi {
            symbols,
            handles,
            library_name,
            initialized_here: false,
            world_rank: 0,
            world_size: 1,
            default_channel: OnceLock::new(),
            _library: library,
        };
        let mut initialized: c_int = 0;
        // SAFETY: a valid out-parameter; callable before initialisation.
        mpi.check("MPI_Initialized", unsafe {
            (mpi.symbols.MPI_Initialized)(&mut initialized)
        })?;
        if initialized == 0 {
            let mut provided: c_int = 0;
            // SAFETY: MPI is not initialised; null argc/argv are allowed.
            let result = unsafe {
                (mpi.symbols.MPI_Init_thread)(
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    MPI_THREAD_MULTIPLE,
                    &mut provided,
                )
            };
            mpi.check("MPI_Init_thread", result)?;
            mpi.initialized_here = true;
            // SAFETY: registers a plain `extern "C"` function.
            unsafe { atexit(finalize_at_exit) };
        } else if mpi.finalized() {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "MPI has already been finalized in this process",
            ));
        }
        let world = mpi.handles.comm_world;
        let (mut rank, mut size) = (0, 1);
        // SAFETY: MPI is initialised; valid out-parameters.
        mpi.check("MPI_Comm_rank", unsafe {
            (mpi.symbols.MPI_Comm_rank)(world, &mut rank)
        })?;
        // SAFETY: as above.
        mpi.check("MPI_Comm_size", unsafe {
            (mpi.symbols.MPI_Comm_size)(world, &mut size)
        })?;
        mpi.world_rank = rank;
        mpi.world_size = size;
        tracing::debug!(
            library = &*mpi.library_name,
            abi = mpi.handles.abi,
            rank,
            size,
            initialized_here = mpi.initialized_here,
            "MPI loaded"
        );
        Ok(Arc::new(mpi))
    }

    fn finalized(&self) -> bool {
        let mut flag: c_int = 0;
        // SAFETY: a valid out-parameter; callable at any time.
        unsafe { (self.symbols.MPI_Finalized)(&mut flag) };
        flag != 0
    }

    /// This process's rank in `MPI_COMM_WORLD`.
    pub fn world_rank(&self) -> i32 {
        self.world_rank
    }

    /// The number of processes in `MPI_COMM_WORLD`.
    pub fn world_size(&self) -> i32 {
        self.world_size
    }

    /// The ABI the library follows (`"Open MPI"` or `"MPICH"`).
    pub fn abi(&self) -> &str {
        self.handles.abi
    }

    /// An MPI result as a status naming the call.
    fn check(&self, call: &str, result: c_int) -> Result<()> {
        if result == MPI_SUCCESS {
            return Ok(());
        }
        let mut text = [0 as c_char; 512];
        let mut len: c_int = 0;
        // SAFETY: `text` holds MPI_MAX_ERROR_STRING (256 in both ABIs) or
        // more bytes; `len` is a valid out-parameter.
        let message =
            if unsafe { (self.symbols.MPI_Error_string)(result, text.as_mut_ptr(), &mut len) }
                == MPI_SUCCESS
            {
                let len = (len.max(0) as usize).min(text.len());
                String::from_utf8_lossy(&text[..len].iter().map(|&c| c as u8).collect::<Vec<_>>())
                    .into_owned()
            } else {
                format!("error {result}")
            };
        Err(Status::new(
            StatusCode::Internal,
            format!("{call} failed: {message}"),
        ))
    }
}

/// Ends the whole MPI job with `code` when this process is one rank of
/// several (`MPI_Abort`), so peers blocked in collectives do not wait for a
/// rank that failed. Does nothing in a process without MPI or alone in
/// its job. The caller prints its error first.
pub fn abort_job(code: i32) {
    if let Some(Ok(mpi)) = MPI.get() {
        if mpi.world_size > 1 && !mpi.finalized() {
            // SAFETY: MPI is initialised and not finalised; MPI_Abort does
            // not return on success.
            unsafe { (mpi.symbols.MPI_Abort)(mpi.handles.comm_world, code.max(1)) };
        }
    }
}

/// The default channel: this process's duplicate of `MPI_COMM_WORLD`.
pub fn default_channel() -> Result<Arc<dyn Channel>> {
    Ok(default_mpi_channel()?)
}

fn default_mpi_channel() -> Result<Arc<MpiChannel>> {
    let mpi = get()?;
    mpi.default_channel
        .get_or_init(|| {
            let mut comm: Handle = 0;
            // SAFETY: MPI is initialised; `comm` is a zeroed pointer-sized
            // out-slot (see the module docs on ABIs).
            mpi.check("MPI_Comm_dup", unsafe {
                (mpi.symbols.MPI_Comm_dup)(mpi.handles.comm_world, &mut comm)
            })?;
            MpiChannel::new(mpi.clone(), comm).map(Arc::new)
        })
        .clone()
}

/// Copies `data` of rank `root` of the default channel into `data` on
/// every other rank (each passes the same length): how a rank shares what
/// it alone can make, such as another library's communicator id.
pub fn broadcast_bytes(data: &mut [u8], root: i32) -> Result<()> {
    let channel = default_mpi_channel()?;
    let count = MpiChannel::int(data.len(), "a broadcast")?;
    let mpi = &channel.mpi;
    // SAFETY: `data` holds `count` bytes, read on the root and written
    // elsewhere; every rank of the communicator makes this call.
    mpi.check("MPI_Bcast", unsafe {
        (mpi.symbols.MPI_Bcast)(
            data.as_mut_ptr().cast(),
            count,
            mpi.handles.byte,
            root,
            channel.comm,
        )
    })
}

/// A channel over one MPI communicator (ours: freed on drop).
pub struct MpiChannel {
    mpi: Arc<Mpi>,
    comm: Handle,
    rank: i32,
    count: i32,
}

impl MpiChannel {
    fn new(mpi: Arc<Mpi>, comm: Handle) -> Result<MpiChannel> {
        let mut channel = MpiChannel {
            mpi,
            comm,
            rank: 0,
            count: 1,
        };
        let mpi = &channel.mpi;
        // SAFETY: `comm` is a live communicator we own.
        mpi.check("MPI_Comm_set_errhandler", unsafe {
            (mpi.symbols.MPI_Comm_set_errhandler)(comm, mpi.handles.errors_return)
        })?;
        let (mut rank, mut count) = (0, 0);
        // SAFETY: valid out-parameters.
        mpi.check("MPI_Comm_rank", unsafe {
            (mpi.symbols.MPI_Comm_rank)(comm, &mut rank)
        })?;
        // SAFETY: as above.
        mpi.check("MPI_Comm_size", unsafe {
            (mpi.symbols.MPI_Comm_size)(comm, &mut count)
        })?;
        channel.rank = rank;
        channel.count = count;
        Ok(channel)
    }

    fn sym(&self) -> &Symbols {
        &self.mpi.symbols
    }

    /// An MPI count argument.
    fn int(value: usize, what: &str) -> Result<c_int> {
        c_int::try_from(value).map_err(|_| {
            Status::new(
                StatusCode::OutOfRange,
                format!(
                    "{what} of {value} exceeds what one MPI call moves ({})",
                    c_int::MAX
                ),
            )
        })
    }

    /// Agrees with every rank on the element count, op and parameter.
    fn agree(&self, collective: &Collective) -> Result<()> {
        let packed = (collective.op.kind as i64)
            | (collective.op.reduction as i64) << 8
            | (collective.op.element_type as i64) << 16;
        let mine = [
            collective.element_count as i64,
            packed,
            collective.param as i64,
        ];
        let local: [i64; 6] = [mine[0], -mine[0], mine[1], -mine[1], mine[2], -mine[2]];
        let mut global = [0i64; 6];
        let h = &self.mpi.handles;
        // SAFETY: both arrays hold 6 int64 values; `comm` is live.
        self.mpi.check("MPI_Allreduce", unsafe {
            (self.sym().MPI_Allreduce)(
                local.as_ptr().cast(),
                global.as_mut_ptr().cast(),
                6,
                h.int64,
                h.ops[3],
                self.comm,
            )
        })?;
        let what = ["element count", "operation", "parameter"];
        for i in 0..3 {
            let (max, min) = (global[2 * i], -global[2 * i + 1]);
            if max != min {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "ranks disagree on the collective's {}: this rank has {}, the ranks range over [{min}, {max}]",
                        what[i], mine[i]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `MPI_Allgather` of `bytes` bytes from `send` into `recv`.
    fn allgather(&self, send: *const u8, recv: *mut u8, bytes: usize) -> Result<()> {
        let n = Self::int(bytes, "an all_gather part")?;
        let byte = self.mpi.handles.byte;
        // SAFETY: `send` has `bytes` readable and `recv` `count * bytes`
        // writable bytes that do not overlap (callers copy aliased sends).
        self.mpi.check("MPI_Allgather", unsafe {
            (self.sym().MPI_Allgather)(send.cast(), n, byte, recv.cast(), n, byte, self.comm)
        })
    }

    /// Reduces in `f32` here what MPI cannot: gathers every rank's
    /// `bytes`-long contribution (`parts` of them) and reduces part `index`
    /// of each into `out`.
    fn reduce_halves(
        &self,
        collective: &Collective,
        send: *const u8,
        bytes: usize,
        block: Option<(usize, usize)>,
    ) -> Result<Vec<u8>> {
        let n = self.count as usize;
        let mut gathered = vec![0u8; bytes * n];
        self.allgather(send, gathered.as_mut_ptr(), bytes)?;
        let (offset, len) = block.unwrap_or((0, bytes));
        // Each part's block at `offset`, back to back.
        let parts: Vec<u8> = (0..n)
            .flat_map(|p| {
                gathered[p * bytes + offset..p * bytes + offset + len]
                    .iter()
                    .copied()
            })
            .collect();
        let mut out = vec![0u8; len];
        reduce_gathered(
            collective.op.element_type,
            collective.op.reduction,
            &parts,
            n,
            &mut out,
        )?;
        Ok(out)
    }

    fn datatype_and_op(&self, collective: &Collective) -> (Handle, Handle) {
        let h = &self.mpi.handles;
        let datatype = h.types[collective.op.element_type as usize];
        let op = match collective.op.reduction {
            Reduction::Sum | Reduction::Average | Reduction::None => h.ops[0],
            Reduction::Product => h.ops[1],
            Reduction::Minimum => h.ops[2],
            Reduction::Maximum => h.ops[3],
        };
        (datatype, op)
    }

    fn send(&self, data: *const u8, bytes: usize, target: i32) -> Result<()> {
        let n = Self::int(bytes, "a send")?;
        // SAFETY: `data` has `bytes` readable bytes; `comm` is live.
        self.mpi.check("MPI_Send", unsafe {
            (self.sym().MPI_Send)(
                data.cast(),
                n,
                self.mpi.handles.byte,
                target,
                TAG,
                self.comm,
            )
        })
    }

    /// Checks a completed receive's size against `bytes`.
    fn check_received(
        &self,
        status: &[u64; STATUS_WORDS],
        bytes: usize,
        source: i32,
    ) -> Result<()> {
        let mut received: c_int = 0;
        // SAFETY: `status` was filled by a completed receive; `received` is
        // a valid out-parameter.
        self.mpi.check("MPI_Get_count", unsafe {
            (self.sym().MPI_Get_count)(status.as_ptr().cast(), self.mpi.handles.byte, &mut received)
        })?;
        if received as usize != bytes {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "received {received} bytes from rank {source} where {bytes} were expected (send and receive sizes differ)"
                ),
            ));
        }
        Ok(())
    }

    fn recv(&self, data: *mut u8, bytes: usize, source: i32) -> Result<()> {
        let n = Self::int(bytes, "a receive")?;
        let mut status = [0u64; STATUS_WORDS];
        // SAFETY: `data` has `bytes` writable bytes; `status` is larger
        // than either ABI's MPI_Status.
        self.mpi.check("MPI_Recv", unsafe {
            (self.sym().MPI_Recv)(
                data.cast(),
                n,
                self.mpi.handles.byte,
                source,
                TAG,
                self.comm,
                status.as_mut_ptr().cast(),
            )
        })?;
        self.check_received(&status, bytes, source)
    }
}

impl Drop for MpiChannel {
    fn drop(&mut self) {
        if !self.mpi.finalized() {
            let mut comm = self.comm;
            // SAFETY: `comm` is a communicator we created and no longer use.
            unsafe { (self.mpi.symbols.MPI_Comm_free)(&mut comm) };
        }
    }
}

impl Channel for MpiChannel {
    fn provider(&self) -> &str {
        "mpi"
    }

    fn rank(&self) -> i32 {
        self.rank
    }

    fn count(&self) -> i32 {
        self.count
    }

    fn split(&self, color: i32, key: i32, _flags: u64) -> Result<Option<Arc<dyn Channel>>> {
        if color < NO_COLOR {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("channel split color {color} must be non-negative or -1 (no color)"),
            ));
        }
        let color = if color == NO_COLOR {
            MPI_UNDEFINED
        } else {
            color
        };
        let mut comm: Handle = 0;
        // SAFETY: `comm` is a zeroed pointer-sized out-slot; every rank of
        // the communicator makes this call (the program's contract).
        self.mpi.check("MPI_Comm_split", unsafe {
            (self.sym().MPI_Comm_split)(self.comm, color, key, &mut comm)
        })?;
        if self.mpi.handles.abi == "MPICH" {
            comm &= 0xffff_ffff;
        }
        if comm == self.mpi.handles.comm_null {
            return Ok(None);
        }
        Ok(Some(Arc::new(MpiChannel::new(self.mpi.clone(), comm)?)))
    }

    fn run(&self, collective: &Collective, io: &mut CollectiveIo<'_>) -> Result<()> {
        let kind = collective.op.kind;
        let bytes = collective.byte_count() as usize;
        let n = self.count as usize;
        if !matches!(
            kind,
            CollectiveKind::Send | CollectiveKind::Recv | CollectiveKind::SendRecv
        ) {
            self.agree(collective)?;
        }
        let half = collective.op.element_type.is_half();
        let (datatype, op) = self.datatype_and_op(collective);
        let elements = Self::int(collective.element_count as usize, "an element count");
        // A send range that aliases the receive range is copied first (MPI
        // forbids aliasing without MPI_IN_PLACE, whose value differs by ABI).
        let send_copy = match (io.send(), io.recv()) {
            (Some(s), Some(r)) if s.overlaps(r) => Some(io.send_to_vec(s.len())?),
            _ => None,
        };
        let send_ptr = match (&send_copy, io.send()) {
            (Some(copy), _) => copy.as_ptr(),
            (None, Some(s)) => s.ptr() as *const u8,
            (None, None) => std::ptr::null(),
        };
        let recv_ptr = io.recv().map_or(std::ptr::null_mut(), |r| r.ptr());
        let average = collective.op.reduction == Reduction::Average;
        match kind {
            CollectiveKind::AllGather => self.allgather(send_ptr, recv_ptr, bytes / n),
            CollectiveKind::AllReduce if half => {
                let out = self.reduce_halves(collective, send_ptr, bytes, None)?;
                io.write_recv(0, &out)
            }
            CollectiveKind::AllReduce => {
                // SAFETY: `elements` values of `datatype` are readable at
                // `send_ptr` and writable at `recv_ptr`, not overlapping.
                self.mpi.check("MPI_Allreduce", unsafe {
                    (self.sym().MPI_Allreduce)(
                        send_ptr.cast(),
                        recv_ptr.cast(),
                        elements?,
                        datatype,
                        op,
                        self.comm,
                    )
                })?;
                if average {
                    io.divide_recv(collective.op.element_type, n as u64)?;
                }
                Ok(())
            }
            CollectiveKind::AllToAll => {
                let part = Self::int(bytes / n, "an all_to_all part")?;
                let byte = self.mpi.handles.byte;
                // SAFETY: both ranges hold `bytes` bytes (`n` parts each)
                // and do not overlap.
                self.mpi.check("MPI_Alltoall", unsafe {
                    (self.sym().MPI_Alltoall)(
                        send_ptr.cast(),
                        part,
                        byte,
                        recv_ptr.cast(),
                        part,
                        byte,
                        self.comm,
                    )
                })
            }
            CollectiveKind::Broadcast => {
                let root = collective.param_rank(self.count)?;
                let count = Self::int(bytes, "a broadcast")?;
                let buffer = if root == self.rank {
                    send_ptr as *mut u8
                } else {
                    recv_ptr
                };
                // SAFETY: on the root MPI only reads `bytes` bytes of the
                // send range; elsewhere it writes the receive range.
                self.mpi.check("MPI_Bcast", unsafe {
                    (self.sym().MPI_Bcast)(
                        buffer.cast(),
                        count,
                        self.mpi.handles.byte,
                        root,
                        self.comm,
                    )
                })?;
                if root == self.rank && io.recv().is_some() {
                    io.copy_send_to_recv(0, bytes)?;
                }
                Ok(())
            }
            CollectiveKind::Reduce if half => {
                let out = self.reduce_halves(collective, send_ptr, bytes, None)?;
                if io.recv().is_some() {
                    io.write_recv(0, &out)?;
                }
                Ok(())
            }
            CollectiveKind::Reduce => {
                let root = collective.param_rank(self.count)?;
                // SAFETY: `elements` values are readable at `send_ptr` and,
                // on the root only, writable at `recv_ptr` (not overlapping).
                self.mpi.check("MPI_Reduce", unsafe {
                    (self.sym().MPI_Reduce)(
                        send_ptr.cast(),
                        recv_ptr.cast(),
                        elements?,
                        datatype,
                        op,
                        root,
                        self.comm,
                    )
                })?;
                if average && root == self.rank {
                    io.divide_recv(collective.op.element_type, n as u64)?;
                }
                Ok(())
            }
            CollectiveKind::ReduceScatter if half => {
                let block = (self.rank as usize * bytes, bytes);
                let out = self.reduce_halves(collective, send_ptr, bytes * n, Some(block))?;
                io.write_recv(0, &out)
            }
            CollectiveKind::ReduceScatter => {
                // SAFETY: `count * elements` values are readable at
                // `send_ptr`, `elements` writable at `recv_ptr`.
                self.mpi.check("MPI_Reduce_scatter_block", unsafe {
                    (self.sym().MPI_Reduce_scatter_block)(
                        send_ptr.cast(),
                        recv_ptr.cast(),
                        elements?,
                        datatype,
                        op,
                        self.comm,
                    )
                })?;
                if average {
                    io.divide_recv(collective.op.element_type, n as u64)?;
                }
                Ok(())
            }
            CollectiveKind::Send => self.send(send_ptr, bytes, collective.param_rank(self.count)?),
            CollectiveKind::Recv => self.recv(recv_ptr, bytes, collective.param_rank(self.count)?),
            CollectiveKind::SendRecv => match collective.send_recv_peers(self.count)? {
                (Some(target), Some(source)) => {
                    let count = Self::int(bytes, "a send_recv")?;
                    let byte = self.mpi.handles.byte;
                    let mut status = [0u64; STATUS_WORDS];
                    // SAFETY: `bytes` readable at `send_ptr`, writable at
                    // `recv_ptr` (not overlapping); `status` is large enough.
                    self.mpi.check("MPI_Sendrecv", unsafe {
                        (self.sym().MPI_Sendrecv)(
                            send_ptr.cast(),
                            count,
                            byte,
                            target,
                            TAG,
                            recv_ptr.cast(),
                            count,
                            byte,
                            source,
                            TAG,
                            self.comm,
                            status.as_mut_ptr().cast(),
                        )
                    })?;
                    self.check_received(&status, bytes, source)
                }
                (Some(target), None) => {
                    self.send(send_ptr, bytes, target)?;
                    io.zero_recv()
                }
                (None, Some(source)) => self.recv(recv_ptr, bytes, source),
                (None, None) => io.zero_recv(),
            },
        }
    }
}
