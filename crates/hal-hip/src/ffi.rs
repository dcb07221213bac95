//! The HIP runtime API as this crate uses it: our own FFI declarations, one
//! table of typed entry points resolved by symbol lookup, and
//! [`HipBackend`], the safe wrapper `iree_hal_gpu` drives. All of the
//! crate's `unsafe` is here.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::ptr::{null_mut, NonNull};
use std::sync::{Arc, OnceLock};

use iree_base::{Result, Status, StatusCode};
use iree_hal::HostMemory;
use iree_hal_gpu::{Backend, DeviceProperties, ExecutableInfo, GpuLimits, KernelParams};
use libloading::Library;

/// `hipError_t`.
pub type HipError = c_int;
/// An opaque runtime handle (`hipModule_t`, `hipFunction_t`, `hipStream_t`,
/// `hipGraph_t`, `hipGraphExec_t`) or a device pointer.
pub type HipHandle = *mut c_void;

/// `hipSuccess`.
pub const HIP_SUCCESS: HipError = 0;
/// `hipErrorOutOfMemory`.
pub const HIP_ERROR_OUT_OF_MEMORY: HipError = 2;
/// `hipErrorNotInitialized`.
pub const HIP_ERROR_NOT_INITIALIZED: HipError = 3;
/// `hipErrorNoDevice`.
pub const HIP_ERROR_NO_DEVICE: HipError = 100;
/// `hipErrorInvalidDevice`.
pub const HIP_ERROR_INVALID_DEVICE: HipError = 101;
/// `hipErrorNotFound`.
pub const HIP_ERROR_NOT_FOUND: HipError = 500;
/// `hipStreamNonBlocking`.
pub const HIP_STREAM_NON_BLOCKING: c_uint = 1;
/// `hipStreamCaptureModeRelaxed`.
pub const HIP_STREAM_CAPTURE_MODE_RELAXED: c_int = 2;
/// `hipHostMallocPortable | hipHostMallocMapped`.
pub const HIP_HOST_MALLOC_PORTABLE_MAPPED: c_uint = 0x1 | 0x2;
/// `hipMemcpyDefault` (direction inferred from unified addresses).
pub const HIP_MEMCPY_DEFAULT: c_int = 4;

/// The library names tried, in order.
pub const LIBRARY_NAMES: &[&str] = &["libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"];

macro_rules! symbol_table {
    ($($(#[$doc:meta])* $name:ident: fn($($arg:ty),* $(,)?) -> $ret:ty;)*) => {
        /// The resolved HIP runtime entry points.
        #[allow(non_snake_case)]
        pub struct Entries {
            $($(#[$doc])* pub $name: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }

        impl Entries {
            /// Resolves every entry point with `lookup`.
            #[allow(non_snake_case)]
            fn resolve(lookup: &dyn Fn(&str) -> Option<NonNull<c_void>>) -> Result<Entries> {
                $(
                    let $name = {
                        let address = lookup(stringify!($name)).ok_or_else(|| missing_symbol(stringify!($name)))?;
                        // SAFETY: the runtime exports this symbol with the C
                        // signature declared in this table (HIP 5 and 6).
                        unsafe {
                            std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) -> $ret>(address.as_ptr())
                        }
                    };
                )*
                Ok(Entries { $($name,)* })
            }
        }
    };
}

/// The loaded library and its entry points (reached through `Deref`).
pub struct Symbols {
    entries: Entries,
    /// Keeps the library mapped while the entry points are in use.
    _library: Library,
}

impl std::ops::Deref for Symbols {
    type Target = Entries;
    fn deref(&self) -> &Entries {
        &self.entries
    }
}

symbol_table! {
    /// `hipInit`.
    hipInit: fn(c_uint) -> HipError;
    /// `hipDriverGetVersion`.
    hipDriverGetVersion: fn(*mut c_int) -> HipError;
    /// `hipGetErrorName`.
    hipGetErrorName: fn(HipError) -> *const c_char;
    /// `hipGetErrorString`.
    hipGetErrorString: fn(HipError) -> *const c_char;
    /// `hipGetDeviceCount`.
    hipGetDeviceCount: fn(*mut c_int) -> HipError;
    /// `hipDeviceGetName`.
    hipDeviceGetName: fn(*mut c_char, c_int, c_int) -> HipError;
    /// `hipSetDevice`.
    hipSetDevice: fn(c_int) -> HipError;
    /// `hipStreamCreateWithFlags`.
    hipStreamCreateWithFlags: fn(*mut HipHandle, c_uint) -> HipError;
    /// `hipStreamDestroy`.
    hipStreamDestroy: fn(HipHandle) -> HipError;
    /// `hipStreamSynchronize`.
    hipStreamSynchronize: fn(HipHandle) -> HipError;
    /// `hipStreamBeginCapture`.
    hipStreamBeginCapture: fn(HipHandle, c_int) -> HipError;
    /// `hipStreamEndCapture`.
    hipStreamEndCapture: fn(HipHandle, *mut HipHandle) -> HipError;
    /// `hipGraphInstantiate`.
    hipGraphInstantiate: fn(*mut HipHandle, HipHandle, *mut HipHandle, *mut c_char, usize) -> HipError;
    /// `hipGraphLaunch`.
    hipGraphLaunch: fn(HipHandle, HipHandle) -> HipError;
    /// `hipGraphExecDestroy`.
    hipGraphExecDestroy: fn(HipHandle) -> HipError;
    /// `hipGraphDestroy`.
    hipGraphDestroy: fn(HipHandle) -> HipError;
    /// `hipMalloc`.
    hipMalloc: fn(*mut HipHandle, usize) -> HipError;
    /// `hipFree`.
    hipFree: fn(HipHandle) -> HipError;
    /// `hipMallocAsync`.
    hipMallocAsync: fn(*mut HipHandle, usize, HipHandle) -> HipError;
    /// `hipFreeAsync`.
    hipFreeAsync: fn(HipHandle, HipHandle) -> HipError;
    /// `hipHostMalloc`.
    hipHostMalloc: fn(*mut HipHandle, usize, c_uint) -> HipError;
    /// `hipHostFree`.
    hipHostFree: fn(HipHandle) -> HipError;
    /// `hipHostGetDevicePointer`.
    hipHostGetDevicePointer: fn(*mut HipHandle, HipHandle, c_uint) -> HipError;
    /// `hipMemcpyHtoD`.
    hipMemcpyHtoD: fn(HipHandle, *const c_void, usize) -> HipError;
    /// `hipMemcpyDtoH`.
    hipMemcpyDtoH: fn(*mut c_void, HipHandle, usize) -> HipError;
    /// `hipMemcpyAsync`.
    hipMemcpyAsync: fn(HipHandle, *const c_void, usize, c_int, HipHandle) -> HipError;
    /// `hipMemsetD8Async`.
    hipMemsetD8Async: fn(HipHandle, u8, usize, HipHandle) -> HipError;
    /// `hipMemsetD16Async`.
    hipMemsetD16Async: fn(HipHandle, u16, usize, HipHandle) -> HipError;
    /// `hipMemsetD32Async`.
    hipMemsetD32Async: fn(HipHandle, c_int, usize, HipHandle) -> HipError;
    /// `hipModuleLoadData`.
    hipModuleLoadData: fn(*mut HipHandle, *const c_void) -> HipError;
    /// `hipModuleUnload`.
    hipModuleUnload: fn(HipHandle) -> HipError;
    /// `hipModuleGetFunction`.
    hipModuleGetFunction: fn(*mut HipHandle, HipHandle, *const c_char) -> HipError;
    /// `hipModuleLaunchKernel`.
    hipModuleLaunchKernel: fn(
        HipHandle, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, HipHandle,
        *mut *mut c_void, *mut *mut c_void,
    ) -> HipError;
}

fn missing_symbol(name: &str) -> Status {
    Status::new(
        StatusCode::Unavailable,
        format!("HIP runtime entry point `{name}` could not be resolved (runtime too old?)"),
    )
}

/// The process-wide symbol table: loaded and initialized (`hipInit`) once.
static SYMBOLS: OnceLock<std::result::Result<Arc<Symbols>, Status>> = OnceLock::new();

impl Symbols {
    /// The loaded table, or UNAVAILABLE naming the library when it cannot be
    /// opened (the same error every time).
    pub fn get() -> Result<Arc<Symbols>> {
        SYMBOLS.get_or_init(Symbols::load).clone()
    }

    /// Opens the library, resolves every entry point and calls `hipInit`.
    fn load() -> Result<Arc<Symbols>> {
        let mut errors = Vec::new();
        let mut library = None;
        for name in LIBRARY_NAMES {
            // SAFETY: loading the HIP runtime runs its initializers, which
            // have no preconditions on this process.
            match unsafe { Library::new(*name) } {
                Ok(l) => {
                    library = Some(l);
                    break;
                }
                Err(e) => errors.push(format!("{name}: {e}")),
            }
        }
        let Some(library) = library else {
            return Err(Status::new(
                StatusCode::Unavailable,
                format!(
                    "HIP runtime library 'libamdhip64.so' not available: please ensure installed and in dynamic library search path (tried {})",
                    errors.join("; ")
                ),
            ));
        };
        let lookup = |name: &str| -> Option<NonNull<c_void>> {
            let symbol = CString::new(name).ok()?;
            // SAFETY: the symbol is only read as an address here; it is
            // given its type in `Entries::resolve`.
            let found = unsafe { library.get::<*mut c_void>(symbol.as_bytes_with_nul()) };
            found.ok().and_then(|s| NonNull::new(*s))
        };
        let entries = Entries::resolve(&lookup)?;
        let symbols = Symbols {
            entries,
            _library: library,
        };
        // SAFETY: `hipInit` takes flags (0) and may be called repeatedly.
        let result = unsafe { (symbols.hipInit)(0) };
        // No device is not a load failure: enumeration reports none.
        if result != HIP_ERROR_NO_DEVICE {
            symbols.check(result, "hipInit")?;
        }
        Ok(Arc::new(symbols))
    }

    /// Turns a `hipError_t` into a status naming the failed call.
    pub fn check(&self, result: HipError, call: &str) -> Result<()> {
        if result == HIP_SUCCESS {
            return Ok(());
        }
        let text = |f: unsafe extern "C" fn(HipError) -> *const c_char| {
            // SAFETY: returns a pointer to a static string (or null).
            let out = unsafe { f(result) };
            if out.is_null() {
                "hipErrorUnknown".to_string()
            } else {
                // SAFETY: the runtime's error strings are NUL-terminated
                // and static.
                unsafe { CStr::from_ptr(out) }
                    .to_string_lossy()
                    .into_owned()
            }
        };
        let code = match result {
            HIP_ERROR_OUT_OF_MEMORY => StatusCode::ResourceExhausted,
            HIP_ERROR_NO_DEVICE | HIP_ERROR_NOT_INITIALIZED => StatusCode::Unavailable,
            HIP_ERROR_INVALID_DEVICE | 1 => StatusCode::InvalidArgument,
            HIP_ERROR_NOT_FOUND => StatusCode::NotFound,
            200 | 209 | 218 | 300 | 301 => StatusCode::InvalidArgument,
            _ => StatusCode::Internal,
        };
        Err(Status::new(
            code,
            format!(
                "HIP runtime error '{}' ({result}): {}; while calling {call}",
                text(self.hipGetErrorName),
                text(self.hipGetErrorString)
            ),
        ))
    }

    /// `(ordinal, name)` of every device; none when the runtime has none.
    pub fn devices(&self) -> Result<Vec<(i32, String)>> {
        let mut count: c_int = 0;
        // SAFETY: `count` is valid for writing.
        let result = unsafe { (self.hipGetDeviceCount)(&mut count) };
        if result == HIP_ERROR_NO_DEVICE {
            return Ok(Vec::new());
        }
        self.check(result, "hipGetDeviceCount")?;
        (0..count)
            .map(|ordinal| Ok((ordinal, self.device_name(ordinal)?)))
            .collect()
    }

    fn device_name(&self, ordinal: c_int) -> Result<String> {
        let mut name = [0 as c_char; 256];
        self.check(
            // SAFETY: the buffer holds `name.len()` bytes; the runtime writes a
            // NUL-terminated string that fits.
            unsafe { (self.hipDeviceGetName)(name.as_mut_ptr(), name.len() as c_int, ordinal) },
            "hipDeviceGetName",
        )?;
        name[name.len() - 1] = 0;
        // SAFETY: NUL-terminated within the buffer (the last byte is 0).
        Ok(unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }
}

/// A runtime handle that may cross threads: HIP objects are usable from
/// any thread once the device is current.
#[derive(Clone, Copy, Debug)]
pub struct Handle(pub HipHandle);

// SAFETY: HIP runtime handles are thread-safe; every use sets the owning
// device current first.
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

/// Converts a device address to HIP's pointer-typed `hipDeviceptr_t`.
fn ptr(address: u64) -> HipHandle {
    address as usize as HipHandle
}

/// One HIP device and one non-blocking stream.
pub struct HipBackend {
    symbols: Arc<Symbols>,
    ordinal: c_int,
    stream: Handle,
    properties: DeviceProperties,
}

impl HipBackend {
    /// Opens device `ordinal` and creates a stream on it.
    pub fn new(symbols: Arc<Symbols>, ordinal: i32) -> Result<HipBackend> {
        let name = symbols.device_name(ordinal)?;
        // SAFETY: selects the device for this thread.
        symbols.check(unsafe { (symbols.hipSetDevice)(ordinal) }, "hipSetDevice")?;
        let mut stream: HipHandle = null_mut();
        symbols.check(
            // SAFETY: `stream` is valid for writing.
            unsafe { (symbols.hipStreamCreateWithFlags)(&mut stream, HIP_STREAM_NON_BLOCKING) },
            "hipStreamCreateWithFlags",
        )?;
        Ok(HipBackend {
            symbols,
            ordinal,
            stream: Handle(stream),
            properties: DeviceProperties {
                name,
                // hipDeviceGetAttribute's enum values moved between ROCm
                // releases; these are the limits of every CDNA/RDNA target
                // (and what the compiler assumes for gfx9).
                limits: GpuLimits {
                    max_block_dims: [1024, 1024, 1024],
                    max_block_shared_memory_size: 64 * 1024,
                },
                memory_pools: false,
            },
        })
    }

    /// Makes the device current on the calling thread.
    fn current(&self) -> Result<()> {
        self.symbols.check(
            // SAFETY: selects a device that exists.
            unsafe { (self.symbols.hipSetDevice)(self.ordinal) },
            "hipSetDevice",
        )
    }
}

impl Drop for HipBackend {
    fn drop(&mut self) {
        if self.current().is_ok() {
            // SAFETY: the stream belongs to this backend and no work is
            // pending (every queue operation synchronizes).
            unsafe { (self.symbols.hipStreamDestroy)(self.stream.0) };
        }
    }
}

/// A loaded module, unloaded on drop.
pub struct HipModule {
    symbols: Arc<Symbols>,
    module: Handle,
}

impl Drop for HipModule {
    fn drop(&mut self) {
        // SAFETY: the module was loaded by this runtime and no kernel of it
        // is running (queue operations synchronize).
        unsafe { (self.symbols.hipModuleUnload)(self.module.0) };
    }
}

/// An instantiated graph, destroyed on drop.
pub struct HipGraph {
    symbols: Arc<Symbols>,
    graph: Handle,
    exec: Handle,
}

impl Drop for HipGraph {
    fn drop(&mut self) {
        // SAFETY: both handles were created by this backend and the graph
        // has finished (the stream was synchronized).
        unsafe {
            (self.symbols.hipGraphExecDestroy)(self.exec.0);
            (self.symbols.hipGraphDestroy)(self.graph.0);
        }
    }
}

/// Pinned host memory: the owner stored in [`HostMemory`], freed on drop.
struct PinnedHost {
    symbols: Arc<Symbols>,
    host: usize,
    device_address: u64,
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        // SAFETY: `host` came from `hipHostMalloc` and no device work uses
        // it (buffers are held until their work finishes).
        unsafe { (self.symbols.hipHostFree)(self.host as HipHandle) };
    }
}

impl Backend for HipBackend {
    type Module = HipModule;
    type Function = Handle;
    type Graph = HipGraph;

    const DRIVER: &'static str = "hip";
    const FORMAT: &'static str = crate::executable::FORMAT;

    fn properties(&self) -> &DeviceProperties {
        &self.properties
    }

    fn parse_executable<'a>(&self, data: &'a [u8]) -> Result<ExecutableInfo<'a>> {
        crate::executable::parse(data)
    }

    fn alloc_device(&self, size: u64) -> Result<u64> {
        self.current()?;
        let mut address: HipHandle = null_mut();
        self.symbols.check(
            // SAFETY: `address` is valid for writing.
            unsafe { (self.symbols.hipMalloc)(&mut address, size as usize) },
            "hipMalloc",
        )?;
        Ok(address as usize as u64)
    }

    fn alloc_device_async(&self, size: u64) -> Result<u64> {
        self.current()?;
        let mut address: HipHandle = null_mut();
        self.symbols.check(
            // SAFETY: `address` is valid for writing; the stream is ours.
            unsafe { (self.symbols.hipMallocAsync)(&mut address, size as usize, self.stream.0) },
            "hipMallocAsync",
        )?;
        Ok(address as usize as u64)
    }

    fn free_device(&self, address: u64, stream_ordered: bool) {
        if self.current().is_err() {
            return;
        }
        // SAFETY: `address` came from the matching allocation call and is
        // no longer referenced by any buffer.
        unsafe {
            if stream_ordered {
                (self.symbols.hipFreeAsync)(ptr(address), self.stream.0);
            } else {
                (self.symbols.hipFree)(ptr(address));
            }
        }
    }

    fn alloc_host(&self, size: usize) -> Result<HostMemory> {
        self.current()?;
        let mut host: HipHandle = null_mut();
        self.symbols.check(
            // SAFETY: `host` is valid for writing.
            unsafe {
                (self.symbols.hipHostMalloc)(
                    &mut host,
                    size.max(1),
                    HIP_HOST_MALLOC_PORTABLE_MAPPED,
                )
            },
            "hipHostMalloc",
        )?;
        let mut device: HipHandle = null_mut();
        let mapped = self.symbols.check(
            // SAFETY: `host` is a mapped pinned allocation.
            unsafe { (self.symbols.hipHostGetDevicePointer)(&mut device, host, 0) },
            "hipHostGetDevicePointer",
        );
        if let Err(status) = mapped {
            // SAFETY: frees the allocation made above, which nothing uses.
            unsafe { (self.symbols.hipHostFree)(host) };
            return Err(status);
        }
        let owner = PinnedHost {
            symbols: self.symbols.clone(),
            host: host as usize,
            device_address: device as usize as u64,
        };
        let ptr = NonNull::new(host.cast::<u8>()).ok_or_else(|| {
            Status::new(StatusCode::ResourceExhausted, "hipHostMalloc returned null")
        })?;
        // SAFETY: `ptr` addresses `size` bytes of pinned memory owned by
        // `owner`, which frees them when dropped with the `HostMemory`;
        // nothing else reaches them from Rust.
        Ok(unsafe { HostMemory::from_foreign(ptr, size, Box::new(owner)) })
    }

    fn host_device_address(&self, memory: &HostMemory) -> Option<u64> {
        memory
            .owner()?
            .downcast_ref::<PinnedHost>()
            .map(|owner| owner.device_address)
    }

    fn copy_to_device(&self, address: u64, data: &[u8]) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: `data` is valid for reads of its length; the range at
            // `address` was checked against the allocation by the caller.
            unsafe { (self.symbols.hipMemcpyHtoD)(ptr(address), data.as_ptr().cast(), data.len()) },
            "hipMemcpyHtoD",
        )
    }

    fn copy_from_device(&self, out: &mut [u8], address: u64) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: `out` is valid for writes of its length; the device range
            // was checked by the caller.
            unsafe {
                (self.symbols.hipMemcpyDtoH)(out.as_mut_ptr().cast(), ptr(address), out.len())
            },
            "hipMemcpyDtoH",
        )
    }

    fn load_module(&self, image: &[u8]) -> Result<HipModule> {
        self.current()?;
        // The runtime finds the code object's extent from its ELF headers;
        // an aligned, padded copy keeps a truncated image from being read
        // past its end as far as the headers are checked by the runtime.
        let mut copy = image.to_vec();
        copy.resize(image.len() + 64, 0);
        let mut module: HipHandle = null_mut();
        self.symbols.check(
            // SAFETY: `copy` lives across the call; the runtime copies the code
            // object while loading.
            unsafe { (self.symbols.hipModuleLoadData)(&mut module, copy.as_ptr().cast()) },
            "hipModuleLoadData",
        )?;
        Ok(HipModule {
            symbols: self.symbols.clone(),
            module: Handle(module),
        })
    }

    fn get_function(&self, module: &HipModule, name: &str, _shared_memory: u32) -> Result<Handle> {
        self.current()?;
        let symbol = CString::new(name).map_err(|_| {
            Status::new(
                StatusCode::InvalidArgument,
                "kernel name contains a NUL byte",
            )
        })?;
        let mut function: HipHandle = null_mut();
        self.symbols.check(
            // SAFETY: the module is loaded; `symbol` is NUL-terminated.
            unsafe {
                (self.symbols.hipModuleGetFunction)(&mut function, module.module.0, symbol.as_ptr())
            },
            "hipModuleGetFunction",
        )?;
        if function.is_null() {
            return Err(Status::new(
                StatusCode::NotFound,
                format!("kernel `{name}` not found"),
            ));
        }
        Ok(Handle(function))
    }

    fn fill(&self, address: u64, length: u64, pattern: &[u8]) -> Result<()> {
        self.current()?;
        let stream = self.stream.0;
        // SAFETY: the caller checked the range and the pattern alignment;
        // the memset is ordered on our stream.
        let result = unsafe {
            match *pattern {
                [b] => (self.symbols.hipMemsetD8Async)(ptr(address), b, length as usize, stream),
                [a, b] => (self.symbols.hipMemsetD16Async)(
                    ptr(address),
                    u16::from_le_bytes([a, b]),
                    (length / 2) as usize,
                    stream,
                ),
                [a, b, c, d] => (self.symbols.hipMemsetD32Async)(
                    ptr(address),
                    i32::from_le_bytes([a, b, c, d]),
                    (length / 4) as usize,
                    stream,
                ),
                _ => {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        "fill patterns must be 1, 2 or 4 bytes",
                    ))
                }
            }
        };
        self.symbols.check(result, "hipMemsetAsync")
    }

    fn copy(&self, target: u64, source: u64, length: u64) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: both ranges were checked by the caller and address memory
            // this device can reach (device or mapped pinned memory).
            unsafe {
                (self.symbols.hipMemcpyAsync)(
                    ptr(target),
                    ptr(source),
                    length as usize,
                    HIP_MEMCPY_DEFAULT,
                    self.stream.0,
                )
            },
            "hipMemcpyAsync",
        )
    }

    fn launch(
        &self,
        function: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_memory: u32,
        params: &mut KernelParams,
    ) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: `params` packs exactly the kernel's declared bindings and
            // constants (one 8-byte slot each) and lives across the call; the
            // runtime copies the argument values before returning. The binding
            // addresses lie in buffers the caller keeps alive until the stream
            // is synchronized.
            unsafe {
                (self.symbols.hipModuleLaunchKernel)(
                    function.0,
                    grid[0],
                    grid[1],
                    grid[2],
                    block[0],
                    block[1],
                    block[2],
                    shared_memory,
                    self.stream.0,
                    params.as_mut_ptr(),
                    null_mut(),
                )
            },
            "hipModuleLaunchKernel",
        )
    }

    fn begin_capture(&self) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: our stream is not the null stream and not capturing.
            unsafe {
                (self.symbols.hipStreamBeginCapture)(self.stream.0, HIP_STREAM_CAPTURE_MODE_RELAXED)
            },
            "hipStreamBeginCapture",
        )
    }

    fn end_capture(&self) -> Result<HipGraph> {
        self.current()?;
        let mut graph: HipHandle = null_mut();
        self.symbols.check(
            // SAFETY: `graph` is valid for writing; the stream is capturing.
            unsafe { (self.symbols.hipStreamEndCapture)(self.stream.0, &mut graph) },
            "hipStreamEndCapture",
        )?;
        let mut exec: HipHandle = null_mut();
        let instantiated = self.symbols.check(
            // SAFETY: `graph` was just captured; `exec` is valid for writing;
            // no error node or log buffer is requested.
            unsafe {
                (self.symbols.hipGraphInstantiate)(&mut exec, graph, null_mut(), null_mut(), 0)
            },
            "hipGraphInstantiate",
        );
        if let Err(status) = instantiated {
            // SAFETY: the graph is ours and unused.
            unsafe { (self.symbols.hipGraphDestroy)(graph) };
            return Err(status);
        }
        Ok(HipGraph {
            symbols: self.symbols.clone(),
            graph: Handle(graph),
            exec: Handle(exec),
        })
    }

    fn launch_graph(&self, graph: &HipGraph) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: the graph is instantiated and outlives the launch (the
            // caller synchronizes before dropping it).
            unsafe { (self.symbols.hipGraphLaunch)(graph.exec.0, self.stream.0) },
            "hipGraphLaunch",
        )
    }

    fn synchronize(&self) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: waits on our stream.
            unsafe { (self.symbols.hipStreamSynchronize)(self.stream.0) },
            "hipStreamSynchronize",
        )
    }
}
