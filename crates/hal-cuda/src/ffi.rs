//! The CUDA driver API as this crate uses it: our own FFI declarations, one
//! table of typed entry points resolved at run time, and [`CudaBackend`],
//! the safe wrapper `iree_hal_gpu` drives. All of the crate's `unsafe` is
//! here.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::ptr::{null_mut, NonNull};
use std::sync::{Arc, OnceLock};

use iree_base::{Result, Status, StatusCode};
use iree_hal::{Channel, ChannelParams, Collective, HostMemory};
use iree_hal_gpu::{Backend, DeviceProperties, ExecutableInfo, GpuLimits, KernelParams};
use libloading::Library;

use crate::nccl::NcclChannel;

/// `CUresult`.
pub type CuResult = c_int;
/// `CUdevice`.
pub type CuDevice = c_int;
/// `CUdeviceptr` (64-bit on every supported platform).
pub type CuDevicePtr = u64;
/// An opaque driver handle (`CUcontext`, `CUmodule`, `CUfunction`,
/// `CUstream`, `CUgraph`, `CUgraphExec`).
pub type CuHandle = *mut c_void;

/// `CUDA_SUCCESS`.
pub const CUDA_SUCCESS: CuResult = 0;
/// `CUDA_ERROR_OUT_OF_MEMORY`.
pub const CUDA_ERROR_OUT_OF_MEMORY: CuResult = 2;
/// `CUDA_ERROR_NOT_INITIALIZED`.
pub const CUDA_ERROR_NOT_INITIALIZED: CuResult = 3;
/// `CUDA_ERROR_NO_DEVICE`.
pub const CUDA_ERROR_NO_DEVICE: CuResult = 100;
/// `CUDA_ERROR_INVALID_DEVICE`.
pub const CUDA_ERROR_INVALID_DEVICE: CuResult = 101;
/// `CUDA_ERROR_NOT_FOUND`.
pub const CUDA_ERROR_NOT_FOUND: CuResult = 500;
/// `CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X` (Y and Z follow).
pub const CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: c_int = 2;
/// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`.
pub const CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: c_int = 97;
/// `CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED`.
pub const CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: c_int = 115;
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
pub const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: c_int = 8;
/// `CU_JIT_ERROR_LOG_BUFFER`.
pub const CU_JIT_ERROR_LOG_BUFFER: c_int = 5;
/// `CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES`.
pub const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;
/// `CU_STREAM_NON_BLOCKING`.
pub const CU_STREAM_NON_BLOCKING: c_uint = 1;
/// `CU_STREAM_CAPTURE_MODE_RELAXED`.
pub const CU_STREAM_CAPTURE_MODE_RELAXED: c_int = 2;
/// `CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP`.
pub const CU_MEMHOSTALLOC_PORTABLE_DEVICEMAP: c_uint = 0x1 | 0x2;
/// The API version entry points are requested at (CUDA 12.0 semantics:
/// the `_v2` forms of the memory and context functions).
pub const CUDA_API_VERSION: c_int = 12000;

/// The library names tried, in order.
pub const LIBRARY_NAMES: &[&str] = &["libcuda.so.1", "libcuda.so"];

/// `cuGetProcAddress_v2` (CUDA 12.0+).
type GetProcAddressV2 =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> CuResult;
/// `cuGetProcAddress` (CUDA 11.3+).
type GetProcAddressV1 =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64) -> CuResult;

macro_rules! symbol_table {
    ($($(#[$doc:meta])* $name:ident: fn($($arg:ty),* $(,)?) -> $ret:ty;)*) => {
        /// The resolved CUDA driver entry points.
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
                        // SAFETY: the driver returned this address for the
                        // named entry point at `CUDA_API_VERSION`, whose C
                        // signature is the one declared in this table.
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
    /// `cuInit`.
    cuInit: fn(c_uint) -> CuResult;
    /// `cuDriverGetVersion`.
    cuDriverGetVersion: fn(*mut c_int) -> CuResult;
    /// `cuGetErrorName`.
    cuGetErrorName: fn(CuResult, *mut *const c_char) -> CuResult;
    /// `cuGetErrorString`.
    cuGetErrorString: fn(CuResult, *mut *const c_char) -> CuResult;
    /// `cuDeviceGetCount`.
    cuDeviceGetCount: fn(*mut c_int) -> CuResult;
    /// `cuDeviceGet`.
    cuDeviceGet: fn(*mut CuDevice, c_int) -> CuResult;
    /// `cuDeviceGetName`.
    cuDeviceGetName: fn(*mut c_char, c_int, CuDevice) -> CuResult;
    /// `cuDeviceGetAttribute`.
    cuDeviceGetAttribute: fn(*mut c_int, c_int, CuDevice) -> CuResult;
    /// `cuDevicePrimaryCtxRetain`.
    cuDevicePrimaryCtxRetain: fn(*mut CuHandle, CuDevice) -> CuResult;
    /// `cuDevicePrimaryCtxRelease` (`_v2`).
    cuDevicePrimaryCtxRelease: fn(CuDevice) -> CuResult;
    /// `cuCtxSetCurrent`.
    cuCtxSetCurrent: fn(CuHandle) -> CuResult;
    /// `cuStreamCreate`.
    cuStreamCreate: fn(*mut CuHandle, c_uint) -> CuResult;
    /// `cuStreamDestroy` (`_v2`).
    cuStreamDestroy: fn(CuHandle) -> CuResult;
    /// `cuStreamSynchronize`.
    cuStreamSynchronize: fn(CuHandle) -> CuResult;
    /// `cuStreamBeginCapture` (`_v2`, with a capture mode).
    cuStreamBeginCapture: fn(CuHandle, c_int) -> CuResult;
    /// `cuStreamEndCapture`.
    cuStreamEndCapture: fn(CuHandle, *mut CuHandle) -> CuResult;
    /// `cuGraphInstantiateWithFlags`.
    cuGraphInstantiateWithFlags: fn(*mut CuHandle, CuHandle, u64) -> CuResult;
    /// `cuGraphLaunch`.
    cuGraphLaunch: fn(CuHandle, CuHandle) -> CuResult;
    /// `cuGraphExecDestroy`.
    cuGraphExecDestroy: fn(CuHandle) -> CuResult;
    /// `cuGraphDestroy`.
    cuGraphDestroy: fn(CuHandle) -> CuResult;
    /// `cuMemAlloc` (`_v2`).
    cuMemAlloc: fn(*mut CuDevicePtr, usize) -> CuResult;
    /// `cuMemFree` (`_v2`).
    cuMemFree: fn(CuDevicePtr) -> CuResult;
    /// `cuMemAllocAsync` (stream-ordered, from the device's default pool).
    cuMemAllocAsync: fn(*mut CuDevicePtr, usize, CuHandle) -> CuResult;
    /// `cuMemFreeAsync`.
    cuMemFreeAsync: fn(CuDevicePtr, CuHandle) -> CuResult;
    /// `cuMemHostAlloc`.
    cuMemHostAlloc: fn(*mut *mut c_void, usize, c_uint) -> CuResult;
    /// `cuMemFreeHost`.
    cuMemFreeHost: fn(*mut c_void) -> CuResult;
    /// `cuMemHostGetDevicePointer` (`_v2`).
    cuMemHostGetDevicePointer: fn(*mut CuDevicePtr, *mut c_void, c_uint) -> CuResult;
    /// `cuMemcpyHtoD` (`_v2`).
    cuMemcpyHtoD: fn(CuDevicePtr, *const c_void, usize) -> CuResult;
    /// `cuMemcpyDtoH` (`_v2`).
    cuMemcpyDtoH: fn(*mut c_void, CuDevicePtr, usize) -> CuResult;
    /// `cuMemcpyAsync` (unified addressing).
    cuMemcpyAsync: fn(CuDevicePtr, CuDevicePtr, usize, CuHandle) -> CuResult;
    /// `cuMemsetD8Async`.
    cuMemsetD8Async: fn(CuDevicePtr, u8, usize, CuHandle) -> CuResult;
    /// `cuMemsetD16Async`.
    cuMemsetD16Async: fn(CuDevicePtr, u16, usize, CuHandle) -> CuResult;
    /// `cuMemsetD32Async`.
    cuMemsetD32Async: fn(CuDevicePtr, c_uint, usize, CuHandle) -> CuResult;
    /// `cuModuleLoadDataEx`.
    cuModuleLoadDataEx: fn(*mut CuHandle, *const c_void, c_uint, *mut c_int, *mut *mut c_void) -> CuResult;
    /// `cuModuleUnload`.
    cuModuleUnload: fn(CuHandle) -> CuResult;
    /// `cuModuleGetFunction`.
    cuModuleGetFunction: fn(*mut CuHandle, CuHandle, *const c_char) -> CuResult;
    /// `cuFuncSetAttribute`.
    cuFuncSetAttribute: fn(CuHandle, c_int, c_int) -> CuResult;
    /// `cuLaunchKernel`.
    cuLaunchKernel: fn(
        CuHandle, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CuHandle,
        *mut *mut c_void, *mut *mut c_void,
    ) -> CuResult;
}

fn missing_symbol(name: &str) -> Status {
    Status::new(
        StatusCode::Unavailable,
        format!("CUDA driver entry point `{name}` could not be resolved (driver too old?)"),
    )
}

/// The process-wide symbol table: loaded and initialized (`cuInit`) once.
static SYMBOLS: OnceLock<std::result::Result<Arc<Symbols>, Status>> = OnceLock::new();

impl Symbols {
    /// The loaded table, or UNAVAILABLE naming the library when it cannot be
    /// opened (the same error every time).
    pub fn get() -> Result<Arc<Symbols>> {
        SYMBOLS.get_or_init(Symbols::load).clone()
    }

    /// Opens the library, resolves every entry point and calls `cuInit`.
    fn load() -> Result<Arc<Symbols>> {
        let mut errors = Vec::new();
        let mut library = None;
        for name in LIBRARY_NAMES {
            // SAFETY: loading the CUDA driver runs its initializers, which
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
                    "CUDA driver library 'libcuda.so.1' not available; please ensure installed and in dynamic library search path (tried {})",
                    errors.join("; ")
                ),
            ));
        };
        let raw = |name: &str| -> Option<NonNull<c_void>> {
            let symbol = CString::new(name).ok()?;
            // SAFETY: the symbol is only read as an address here; it is
            // given its type in `Symbols::resolve`.
            let found = unsafe { library.get::<*mut c_void>(symbol.as_bytes_with_nul()) };
            found.ok().and_then(|s| NonNull::new(*s))
        };
        let v2 = raw("cuGetProcAddress_v2");
        let v1 = raw("cuGetProcAddress");
        let lookup = |name: &str| -> Option<NonNull<c_void>> {
            let symbol = CString::new(name).ok()?;
            let mut address: *mut c_void = null_mut();
            if let Some(v2) = v2 {
                let f =
                    // SAFETY: `cuGetProcAddress_v2` has this signature in every
                    // driver that exports it (CUDA 12.0+).
                    unsafe { std::mem::transmute::<*mut c_void, GetProcAddressV2>(v2.as_ptr()) };
                let mut status: c_int = 0;
                // SAFETY: all pointers are valid for the call; the driver
                // writes `address` and `status` only.
                let result = unsafe {
                    f(
                        symbol.as_ptr(),
                        &mut address,
                        CUDA_API_VERSION,
                        0,
                        &mut status,
                    )
                };
                if result == CUDA_SUCCESS {
                    return NonNull::new(address);
                }
            } else if let Some(v1) = v1 {
                let f =
                    // SAFETY: `cuGetProcAddress` has this signature (CUDA 11.3+).
                    unsafe { std::mem::transmute::<*mut c_void, GetProcAddressV1>(v1.as_ptr()) };
                // SAFETY: all pointers are valid for the call.
                let result = unsafe { f(symbol.as_ptr(), &mut address, 11030, 0) };
                if result == CUDA_SUCCESS {
                    return NonNull::new(address);
                }
            }
            // Old drivers: the versioned export first (`cuMemAlloc_v2`).
            raw(&format!("{name}_v2")).or_else(|| raw(name))
        };
        let entries = Entries::resolve(&lookup)?;
        let symbols = Symbols {
            entries,
            _library: library,
        };
        // SAFETY: `cuInit` takes flags (0) and may be called repeatedly.
        symbols.check(unsafe { (symbols.cuInit)(0) }, "cuInit")?;
        Ok(Arc::new(symbols))
    }

    /// Turns a `CUresult` into a status naming the failed call.
    pub fn check(&self, result: CuResult, call: &str) -> Result<()> {
        if result == CUDA_SUCCESS {
            return Ok(());
        }
        let text = |f: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult| {
            let mut out: *const c_char = std::ptr::null();
            // SAFETY: the driver stores a pointer to a static string or
            // leaves `out` null.
            let ok = unsafe { f(result, &mut out) } == CUDA_SUCCESS;
            if ok && !out.is_null() {
                // SAFETY: the driver's error strings are NUL-terminated and
                // static.
                unsafe { CStr::from_ptr(out) }
                    .to_string_lossy()
                    .into_owned()
            } else {
                "CUDA_ERROR_UNKNOWN".to_string()
            }
        };
        let code = match result {
            CUDA_ERROR_OUT_OF_MEMORY => StatusCode::ResourceExhausted,
            CUDA_ERROR_NO_DEVICE | CUDA_ERROR_NOT_INITIALIZED => StatusCode::Unavailable,
            CUDA_ERROR_INVALID_DEVICE | 1 => StatusCode::InvalidArgument,
            CUDA_ERROR_NOT_FOUND => StatusCode::NotFound,
            200 | 209 | 218 | 300 | 301 => StatusCode::InvalidArgument,
            _ => StatusCode::Internal,
        };
        Err(Status::new(
            code,
            format!(
                "CUDA driver error '{}' ({result}): {}; while calling {call}",
                text(self.cuGetErrorName),
                text(self.cuGetErrorString)
            ),
        ))
    }

    /// `(ordinal, name)` of every device; none when the driver has none.
    pub fn devices(&self) -> Result<Vec<(i32, String)>> {
        let mut count: c_int = 0;
        // SAFETY: `count` is valid for writing.
        let result = unsafe { (self.cuDeviceGetCount)(&mut count) };
        if result == CUDA_ERROR_NO_DEVICE {
            return Ok(Vec::new());
        }
        self.check(result, "cuDeviceGetCount")?;
        (0..count)
            .map(|ordinal| {
                let device = self.device(ordinal)?;
                Ok((ordinal, self.device_name(device)?))
            })
            .collect()
    }

    fn device(&self, ordinal: i32) -> Result<CuDevice> {
        let mut device: CuDevice = 0;
        self.check(
            // SAFETY: `device` is valid for writing.
            unsafe { (self.cuDeviceGet)(&mut device, ordinal) },
            "cuDeviceGet",
        )?;
        Ok(device)
    }

    fn device_name(&self, device: CuDevice) -> Result<String> {
        let mut name = [0 as c_char; 256];
        self.check(
            // SAFETY: the buffer holds `name.len()` bytes; the driver writes a
            // NUL-terminated string that fits.
            unsafe { (self.cuDeviceGetName)(name.as_mut_ptr(), name.len() as c_int, device) },
            "cuDeviceGetName",
        )?;
        name[name.len() - 1] = 0;
        // SAFETY: NUL-terminated within the buffer (the last byte is 0).
        Ok(unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    fn attribute(&self, attribute: c_int, device: CuDevice) -> Result<i32> {
        let mut value: c_int = 0;
        self.check(
            // SAFETY: `value` is valid for writing.
            unsafe { (self.cuDeviceGetAttribute)(&mut value, attribute, device) },
            "cuDeviceGetAttribute",
        )?;
        Ok(value)
    }
}

/// A driver handle that may cross threads: CUDA driver objects are usable
/// from any thread once their context is current.
#[derive(Clone, Copy, Debug)]
pub struct Handle(pub CuHandle);

// SAFETY: CUDA driver API handles are thread-safe; every use sets the
// owning context current first.
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

/// A retained primary context of one device, released on drop (what an
/// NCCL channel holds, so its communicator can outlive the device object).
pub struct PrimaryContext {
    symbols: Arc<Symbols>,
    device: CuDevice,
    context: Handle,
}

impl PrimaryContext {
    /// Retains `device`'s primary context.
    pub fn retain(symbols: Arc<Symbols>, device: CuDevice) -> Result<PrimaryContext> {
        let mut context: CuHandle = null_mut();
        symbols.check(
            // SAFETY: `context` is valid for writing.
            unsafe { (symbols.cuDevicePrimaryCtxRetain)(&mut context, device) },
            "cuDevicePrimaryCtxRetain",
        )?;
        Ok(PrimaryContext {
            symbols,
            device,
            context: Handle(context),
        })
    }

    /// Makes the context current on the calling thread.
    pub fn make_current(&self) -> Result<()> {
        self.symbols.check(
            // SAFETY: the context is retained for the life of `self`.
            unsafe { (self.symbols.cuCtxSetCurrent)(self.context.0) },
            "cuCtxSetCurrent",
        )
    }

    /// The device.
    pub fn device(&self) -> CuDevice {
        self.device
    }

    /// The CUDA entry points.
    pub fn symbols(&self) -> &Arc<Symbols> {
        &self.symbols
    }
}

impl Drop for PrimaryContext {
    fn drop(&mut self) {
        // SAFETY: releases the retain taken in `retain`.
        unsafe { (self.symbols.cuDevicePrimaryCtxRelease)(self.device) };
    }
}

/// One CUDA device: its primary context and one non-blocking stream.
pub struct CudaBackend {
    symbols: Arc<Symbols>,
    device: CuDevice,
    context: Handle,
    stream: Handle,
    properties: DeviceProperties,
}

impl CudaBackend {
    /// Opens device `ordinal`: retains its primary context and creates a
    /// stream.
    pub fn new(symbols: Arc<Symbols>, ordinal: i32) -> Result<CudaBackend> {
        let device = symbols.device(ordinal)?;
        let name = symbols.device_name(device)?;
        let dim = |i: c_int| -> Result<u32> {
            Ok(symbols.attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i, device)? as u32)
        };
        let limits = GpuLimits {
            max_block_dims: [dim(0)?, dim(1)?, dim(2)?],
            max_block_shared_memory_size: symbols.attribute(
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                device,
            )? as u32,
        };
        let memory_pools = symbols
            .attribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device)
            .unwrap_or(0)
            != 0;
        let mut context: CuHandle = null_mut();
        symbols.check(
            // SAFETY: `context` is valid for writing.
            unsafe { (symbols.cuDevicePrimaryCtxRetain)(&mut context, device) },
            "cuDevicePrimaryCtxRetain",
        )?;
        let current = symbols.check(
            // SAFETY: `context` was just retained.
            unsafe { (symbols.cuCtxSetCurrent)(context) },
            "cuCtxSetCurrent",
        );
        let mut stream: CuHandle = null_mut();
        let created = current.and_then(|()| {
            symbols.check(
                // SAFETY: `stream` is valid for writing; the context is current.
                unsafe { (symbols.cuStreamCreate)(&mut stream, CU_STREAM_NON_BLOCKING) },
                "cuStreamCreate",
            )
        });
        if let Err(status) = created {
            // SAFETY: releases the retain above.
            unsafe { (symbols.cuDevicePrimaryCtxRelease)(device) };
            return Err(status);
        }
        Ok(CudaBackend {
            symbols,
            device,
            context: Handle(context),
            stream: Handle(stream),
            properties: DeviceProperties {
                name,
                limits,
                memory_pools,
            },
        })
    }

    /// Makes the device's context current on the calling thread.
    fn current(&self) -> Result<()> {
        self.symbols.check(
            // SAFETY: the context is retained for the life of `self`.
            unsafe { (self.symbols.cuCtxSetCurrent)(self.context.0) },
            "cuCtxSetCurrent",
        )
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        if self.current().is_ok() {
            // SAFETY: the stream belongs to this backend and no work is
            // pending (every queue operation synchronizes).
            unsafe { (self.symbols.cuStreamDestroy)(self.stream.0) };
        }
        // SAFETY: releases the retain taken in `new`.
        unsafe { (self.symbols.cuDevicePrimaryCtxRelease)(self.device) };
    }
}

/// A loaded module, unloaded on drop.
pub struct CudaModule {
    symbols: Arc<Symbols>,
    context: Handle,
    module: Handle,
}

impl Drop for CudaModule {
    fn drop(&mut self) {
        // SAFETY: the context outlives its modules (the executable holding
        // this module holds no reference to the device, so set it current).
        unsafe {
            (self.symbols.cuCtxSetCurrent)(self.context.0);
            (self.symbols.cuModuleUnload)(self.module.0);
        }
    }
}

/// An instantiated graph, destroyed on drop.
pub struct CudaGraph {
    symbols: Arc<Symbols>,
    graph: Handle,
    exec: Handle,
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        // SAFETY: both handles were created by this backend and the graph
        // has finished (the stream was synchronized).
        unsafe {
            (self.symbols.cuGraphExecDestroy)(self.exec.0);
            (self.symbols.cuGraphDestroy)(self.graph.0);
        }
    }
}

/// Pinned host memory: the owner stored in [`HostMemory`], freed on drop.
struct PinnedHost {
    symbols: Arc<Symbols>,
    context: Handle,
    host: usize,
    device_address: u64,
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        // SAFETY: `host` came from `cuMemHostAlloc` in this context and no
        // device work uses it (buffers are held until their work finishes).
        unsafe {
            (self.symbols.cuCtxSetCurrent)(self.context.0);
            (self.symbols.cuMemFreeHost)(self.host as *mut c_void);
        }
    }
}

impl Backend for CudaBackend {
    type Module = CudaModule;
    type Function = Handle;
    type Graph = CudaGraph;

    const DRIVER: &'static str = "cuda";
    const FORMAT: &'static str = crate::executable::FORMAT;

    fn properties(&self) -> &DeviceProperties {
        &self.properties
    }

    fn parse_executable<'a>(&self, data: &'a [u8]) -> Result<ExecutableInfo<'a>> {
        crate::executable::parse(data)
    }

    fn alloc_device(&self, size: u64) -> Result<u64> {
        self.current()?;
        let mut address: CuDevicePtr = 0;
        self.symbols.check(
            // SAFETY: `address` is valid for writing.
            unsafe { (self.symbols.cuMemAlloc)(&mut address, size as usize) },
            "cuMemAlloc",
        )?;
        Ok(address)
    }

    fn alloc_device_async(&self, size: u64) -> Result<u64> {
        self.current()?;
        let mut address: CuDevicePtr = 0;
        self.symbols.check(
            // SAFETY: `address` is valid for writing; the stream is ours.
            unsafe { (self.symbols.cuMemAllocAsync)(&mut address, size as usize, self.stream.0) },
            "cuMemAllocAsync",
        )?;
        Ok(address)
    }

    fn free_device(&self, address: u64, stream_ordered: bool) {
        if self.current().is_err() {
            return;
        }
        // SAFETY: `address` came from the matching allocation call and is
        // no longer referenced by any buffer.
        unsafe {
            if stream_ordered {
                (self.symbols.cuMemFreeAsync)(address, self.stream.0);
            } else {
                (self.symbols.cuMemFree)(address);
            }
        }
    }

    fn alloc_host(&self, size: usize) -> Result<HostMemory> {
        self.current()?;
        let mut host: *mut c_void = null_mut();
        self.symbols.check(
            // SAFETY: `host` is valid for writing.
            unsafe {
                (self.symbols.cuMemHostAlloc)(
                    &mut host,
                    size.max(1),
                    CU_MEMHOSTALLOC_PORTABLE_DEVICEMAP,
                )
            },
            "cuMemHostAlloc",
        )?;
        let mut device_address: CuDevicePtr = 0;
        let mapped = self.symbols.check(
            // SAFETY: `host` is a mapped pinned allocation of this context.
            unsafe { (self.symbols.cuMemHostGetDevicePointer)(&mut device_address, host, 0) },
            "cuMemHostGetDevicePointer",
        );
        if let Err(status) = mapped {
            // SAFETY: frees the allocation made above, which nothing uses.
            unsafe { (self.symbols.cuMemFreeHost)(host) };
            return Err(status);
        }
        let owner = PinnedHost {
            symbols: self.symbols.clone(),
            context: self.context,
            host: host as usize,
            device_address,
        };
        let ptr = NonNull::new(host.cast::<u8>()).ok_or_else(|| {
            Status::new(
                StatusCode::ResourceExhausted,
                "cuMemHostAlloc returned null",
            )
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
            unsafe { (self.symbols.cuMemcpyHtoD)(address, data.as_ptr().cast(), data.len()) },
            "cuMemcpyHtoD",
        )
    }

    fn copy_from_device(&self, out: &mut [u8], address: u64) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: `out` is valid for writes of its length; the device range
            // was checked by the caller.
            unsafe { (self.symbols.cuMemcpyDtoH)(out.as_mut_ptr().cast(), address, out.len()) },
            "cuMemcpyDtoH",
        )
    }

    fn load_module(&self, image: &[u8]) -> Result<CudaModule> {
        self.current()?;
        // PTX is text the driver reads up to a NUL: pass a terminated copy
        // so it can never read past the image.
        let mut ptx = image.to_vec();
        ptx.push(0);
        let mut log = vec![0u8; 8192];
        let mut options = [CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
        let mut values = [log.as_mut_ptr().cast::<c_void>(), log.len() as *mut c_void];
        let mut module: CuHandle = null_mut();
        // SAFETY: `ptx` is NUL-terminated; the option arrays have two
        // entries and the log buffer has the size given.
        let result = unsafe {
            (self.symbols.cuModuleLoadDataEx)(
                &mut module,
                ptx.as_ptr().cast(),
                options.len() as c_uint,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        self.symbols
            .check(result, "cuModuleLoadDataEx")
            .map_err(|e| {
                let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                e.annotate(format!("JIT log: {}", String::from_utf8_lossy(&log[..end])))
            })?;
        Ok(CudaModule {
            symbols: self.symbols.clone(),
            context: self.context,
            module: Handle(module),
        })
    }

    fn get_function(&self, module: &CudaModule, name: &str, shared_memory: u32) -> Result<Handle> {
        self.current()?;
        let symbol = CString::new(name).map_err(|_| {
            Status::new(
                StatusCode::InvalidArgument,
                "kernel name contains a NUL byte",
            )
        })?;
        let mut function: CuHandle = null_mut();
        self.symbols.check(
            // SAFETY: the module is loaded; `symbol` is NUL-terminated.
            unsafe {
                (self.symbols.cuModuleGetFunction)(&mut function, module.module.0, symbol.as_ptr())
            },
            "cuModuleGetFunction",
        )?;
        if function.is_null() {
            return Err(Status::new(
                StatusCode::NotFound,
                format!("kernel `{name}` not found"),
            ));
        }
        self.symbols.check(
            // SAFETY: `function` is a valid kernel handle.
            unsafe {
                (self.symbols.cuFuncSetAttribute)(
                    function,
                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared_memory as c_int,
                )
            },
            "cuFuncSetAttribute",
        )?;
        Ok(Handle(function))
    }

    fn fill(&self, address: u64, length: u64, pattern: &[u8]) -> Result<()> {
        self.current()?;
        let stream = self.stream.0;
        // SAFETY: the caller checked the range and the pattern alignment;
        // the memset is ordered on our stream.
        let result = unsafe {
            match *pattern {
                [b] => (self.symbols.cuMemsetD8Async)(address, b, length as usize, stream),
                [a, b] => (self.symbols.cuMemsetD16Async)(
                    address,
                    u16::from_le_bytes([a, b]),
                    (length / 2) as usize,
                    stream,
                ),
                [a, b, c, d] => (self.symbols.cuMemsetD32Async)(
                    address,
                    u32::from_le_bytes([a, b, c, d]),
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
        self.symbols.check(result, "cuMemsetAsync")
    }

    fn copy(&self, target: u64, source: u64, length: u64) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: both ranges were checked by the caller and address memory
            // this device can reach (device or mapped pinned memory).
            unsafe { (self.symbols.cuMemcpyAsync)(target, source, length as usize, self.stream.0) },
            "cuMemcpyAsync",
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
            // driver copies the argument values before returning. The binding
            // addresses lie in buffers the caller keeps alive until the stream
            // is synchronized.
            unsafe {
                (self.symbols.cuLaunchKernel)(
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
            "cuLaunchKernel",
        )
    }

    fn begin_capture(&self) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: our stream is not the legacy stream and not capturing.
            unsafe {
                (self.symbols.cuStreamBeginCapture)(self.stream.0, CU_STREAM_CAPTURE_MODE_RELAXED)
            },
            "cuStreamBeginCapture",
        )
    }

    fn end_capture(&self) -> Result<CudaGraph> {
        self.current()?;
        let mut graph: CuHandle = null_mut();
        self.symbols.check(
            // SAFETY: `graph` is valid for writing; the stream is capturing.
            unsafe { (self.symbols.cuStreamEndCapture)(self.stream.0, &mut graph) },
            "cuStreamEndCapture",
        )?;
        let mut exec: CuHandle = null_mut();
        let instantiated = self.symbols.check(
            // SAFETY: `graph` was just captured; `exec` is valid for writing.
            unsafe { (self.symbols.cuGraphInstantiateWithFlags)(&mut exec, graph, 0) },
            "cuGraphInstantiateWithFlags",
        );
        if let Err(status) = instantiated {
            // SAFETY: the graph is ours and unused.
            unsafe { (self.symbols.cuGraphDestroy)(graph) };
            return Err(status);
        }
        Ok(CudaGraph {
            symbols: self.symbols.clone(),
            graph: Handle(graph),
            exec: Handle(exec),
        })
    }

    fn launch_graph(&self, graph: &CudaGraph) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: the graph is instantiated and outlives the launch (the
            // caller synchronizes before dropping it).
            unsafe { (self.symbols.cuGraphLaunch)(graph.exec.0, self.stream.0) },
            "cuGraphLaunch",
        )
    }

    fn synchronize(&self) -> Result<()> {
        self.current()?;
        self.symbols.check(
            // SAFETY: waits on our stream.
            unsafe { (self.symbols.cuStreamSynchronize)(self.stream.0) },
            "cuStreamSynchronize",
        )
    }

    /// An NCCL communicator on this device ([`NcclChannel::create`]).
    fn create_channel(&self, params: &ChannelParams) -> Result<Arc<dyn Channel>> {
        NcclChannel::create(&self.symbols, self.device, params)
    }

    /// Enqueues a collective of one of our NCCL channels on the stream.
    fn collective(
        &self,
        channel: &dyn Channel,
        collective: &Collective,
        send: Option<u64>,
        recv: Option<u64>,
    ) -> Result<()> {
        let nccl = channel
            .as_any()
            .and_then(|c| c.downcast_ref::<NcclChannel>())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "a '{}' channel cannot run collectives on a CUDA device (only the NCCL channels CUDA devices create can)",
                        channel.provider()
                    ),
                )
            })?;
        self.current()?;
        nccl.issue(
            self.device,
            self.stream.0,
            collective,
            send,
            recv,
            &|address, length| self.fill(address, length, &[0]),
        )
    }
}
