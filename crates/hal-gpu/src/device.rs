//! The HAL device, allocator and executable over a [`Backend`].
//!
//! Queue operations are ordered only by their fences ([`iree_hal::Queue`]):
//! one whose wait fence is reached runs on the submitting thread, one whose
//! wait is pending returns at once and runs on the queue's executor thread
//! when the wait is reached. Running one means issuing its work on the
//! device's stream (directly, or captured into a graph and launched),
//! waiting for the stream, then signaling the signal fence, or failing it
//! with the error so every waiter sees the root cause. Buffers the device
//! uses stay referenced until the stream is idle.
//!
//! Collectives are the backend's ([`Backend::create_channel`],
//! [`Backend::collective`]): the device checks each one's ranges as the
//! host path does and hands the backend device addresses to enqueue on the
//! stream; a command buffer holding a collective is issued on the stream
//! even in graph mode.

use std::any::Any;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::allocator::SharedStatistics;
use iree_hal::buffer::DeviceAccess;
use iree_hal::command_buffer::resolve;
use iree_hal::device::match_pattern;
use iree_hal::{
    Allocator, AllocatorStatistics, BindingRef, Buffer, BufferBinding, BufferCompatibility,
    BufferParams, BufferUsage, Channel, ChannelParams, Collective, CollectiveRange, Command,
    CommandBuffer, Device, DeviceMemory, DispatchBinding, Event, Executable, Fence, MemoryAccess,
    MemoryHeap, MemoryType, WorkgroupCount,
};
use iree_hal::{DeferredExecution, Queue};
use parking_lot::Mutex;

use crate::backend::{Backend, Recording};
use crate::executable::ExportInfo;
use crate::params::KernelParams;

/// Driver options (upstream's `--cuda_*` / `--hip_*` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// How command buffers run (`--cuda_use_streams`, default true).
    pub recording: Recording,
    /// Use stream-ordered pool allocations for `queue.alloca` when the
    /// device supports them (`--cuda_async_allocations`, default true).
    pub async_allocations: bool,
}

impl Default for GpuOptions {
    fn default() -> GpuOptions {
        GpuOptions {
            recording: Recording::Stream,
            async_allocations: true,
        }
    }
}

/// Device memory from [`Backend::alloc_device`]; freed on drop.
struct GpuMemory<B: Backend> {
    backend: Arc<B>,
    address: u64,
    len: u64,
    stream_ordered: bool,
}

impl<B: Backend> DeviceMemory for GpuMemory<B> {
    fn len(&self) -> u64 {
        self.len
    }

    fn device_address(&self) -> u64 {
        self.address
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        self.backend.copy_from_device(out, self.address + offset)
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        self.backend.copy_to_device(self.address + offset, data)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl<B: Backend> Drop for GpuMemory<B> {
    fn drop(&mut self) {
        if self.len > 0 {
            self.backend.free_device(self.address, self.stream_ordered);
        }
    }
}

/// The device's allocator: device-local memory, and pinned host memory for
/// anything the host must see.
pub struct GpuAllocator<B: Backend> {
    backend: Arc<B>,
    /// Direct allocations.
    statistics: SharedStatistics,
    /// Stream-ordered allocations from the device's memory pool, when
    /// `queue.alloca` uses it (`pooled`).
    pool_statistics: SharedStatistics,
    pooled: bool,
}

impl<B: Backend> GpuAllocator<B> {
    /// Resolves `params` to where the memory will live and what it allows.
    fn resolve(params: &BufferParams) -> (bool, MemoryType, BufferUsage) {
        let host_visible = params.memory_type.contains(MemoryType::HOST_VISIBLE);
        if host_visible {
            let memory_type = MemoryType(
                (params.memory_type | MemoryType::HOST_COHERENT | MemoryType::DEVICE_VISIBLE).0
                    & !MemoryType::OPTIMAL.0,
            );
            let usage = params.usage
                | BufferUsage::TRANSFER
                | BufferUsage::MAPPING_SCOPED
                | BufferUsage::MAPPING_PERSISTENT
                | BufferUsage::MAPPING_ACCESS_RANDOM;
            (true, memory_type, usage)
        } else {
            (
                false,
                MemoryType::DEVICE_LOCAL,
                params.usage | BufferUsage::TRANSFER,
            )
        }
    }

    /// Allocates, optionally from the stream's pool.
    fn allocate(&self, params: BufferParams, size: u64, stream_ordered: bool) -> Result<Buffer> {
        let params = params.canonicalize();
        let (host, memory_type, usage) = Self::resolve(&params);
        if host {
            let len = usize::try_from(size).map_err(|_| {
                Status::new(
                    StatusCode::ResourceExhausted,
                    format!("cannot allocate {size} bytes"),
                )
            })?;
            let memory = self.backend.alloc_host(len)?;
            return Ok(Buffer::from_host_memory(
                memory,
                memory_type,
                usage,
                params.access,
                Some(self.statistics.clone()),
            ));
        }
        let stream_ordered = stream_ordered && self.pooled;
        let address = match size {
            0 => 0,
            _ if stream_ordered => self.backend.alloc_device_async(size)?,
            _ => self.backend.alloc_device(size)?,
        };
        let memory = Arc::new(GpuMemory {
            backend: self.backend.clone(),
            address,
            len: size,
            stream_ordered,
        });
        let statistics = if stream_ordered {
            &self.pool_statistics
        } else {
            &self.statistics
        };
        Ok(Buffer::from_device_memory(
            memory,
            memory_type,
            usage,
            params.access,
            Some(statistics.clone()),
        ))
    }
}

impl<B: Backend> Allocator for GpuAllocator<B> {
    fn memory_heaps(&self) -> Vec<MemoryHeap> {
        vec![
            MemoryHeap {
                memory_type: MemoryType::DEVICE_LOCAL,
                allowed_usage: BufferUsage::TRANSFER | BufferUsage::DISPATCH,
                max_allocation_size: u64::MAX,
                min_alignment: 256,
            },
            MemoryHeap {
                memory_type: MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE,
                allowed_usage: BufferUsage::TRANSFER
                    | BufferUsage::DISPATCH
                    | BufferUsage::MAPPING_SCOPED
                    | BufferUsage::MAPPING_PERSISTENT
                    | BufferUsage::MAPPING_ACCESS_RANDOM,
                max_allocation_size: u64::MAX,
                min_alignment: 64,
            },
        ]
    }

    fn query_buffer_compatibility(
        &self,
        params: &mut BufferParams,
        _allocation_size: u64,
    ) -> BufferCompatibility {
        let (_, memory_type, usage) = Self::resolve(params);
        let mut compatibility = BufferCompatibility::ALLOCATABLE.0;
        if usage.intersects(BufferUsage::TRANSFER) {
            compatibility |= BufferCompatibility::QUEUE_TRANSFER.0;
        }
        if usage.intersects(BufferUsage::DISPATCH) {
            compatibility |= BufferCompatibility::QUEUE_DISPATCH.0;
        }
        params.memory_type = memory_type;
        params.usage = usage;
        BufferCompatibility(compatibility)
    }

    fn allocate_buffer(&self, params: BufferParams, allocation_size: u64) -> Result<Buffer> {
        self.allocate(params, allocation_size, false)
    }

    /// As upstream's CUDA and HIP allocators report them: with memory pools
    /// in use, bytes allocated and freed are the pool's alone, and each
    /// peak is the direct allocations' peak plus the pool's high-water mark.
    fn statistics(&self) -> AllocatorStatistics {
        let direct = *self.statistics.lock();
        if !self.pooled {
            return direct;
        }
        let pool = *self.pool_statistics.lock();
        AllocatorStatistics {
            host_bytes_peak: direct.host_bytes_peak + pool.host_bytes_peak,
            host_bytes_allocated: pool.host_bytes_allocated,
            host_bytes_freed: pool.host_bytes_freed,
            device_bytes_peak: direct.device_bytes_peak + pool.device_bytes_peak,
            device_bytes_allocated: pool.device_bytes_allocated,
            device_bytes_freed: pool.device_bytes_freed,
        }
    }
}

/// A loaded executable: modules, kernels and their launch metadata.
pub struct GpuExecutable<B: Backend> {
    /// Keeps the modules loaded while kernels may run.
    _modules: Vec<B::Module>,
    exports: Vec<ExportInfo>,
    functions: Vec<B::Function>,
}

impl<B: Backend> GpuExecutable<B> {
    /// Parses, validates against the device's limits, loads every module and
    /// looks up every kernel.
    pub fn load(backend: &B, data: &[u8]) -> Result<GpuExecutable<B>> {
        let info = backend.parse_executable(data)?;
        info.validate(&backend.properties().limits)?;
        let modules = info
            .modules
            .iter()
            .enumerate()
            .map(|(i, image)| {
                backend
                    .load_module(image)
                    .map_err(|e| e.annotate(format!("loading modules[{i}]")))
            })
            .collect::<Result<Vec<_>>>()?;
        let functions = info
            .exports
            .iter()
            .enumerate()
            .map(|(i, export)| {
                backend
                    .get_function(
                        &modules[export.module_ordinal as usize],
                        &export.name,
                        export.block_shared_memory_size,
                    )
                    .map_err(|e| {
                        e.annotate(format!(
                            "exports[{i}] kernel `{}` in modules[{}]",
                            export.name, export.module_ordinal
                        ))
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(GpuExecutable {
            _modules: modules,
            exports: info.exports,
            functions,
        })
    }

    /// The launch metadata of every export.
    pub fn exports(&self) -> &[ExportInfo] {
        &self.exports
    }
}

impl<B: Backend> Executable for GpuExecutable<B> {
    fn export_count(&self) -> usize {
        self.exports.len()
    }

    fn export_name(&self, ordinal: usize) -> Option<&str> {
        self.exports.get(ordinal).map(|e| e.name.as_str())
    }

    fn dispatch(
        &self,
        _ordinal: usize,
        _workgroup_count: [u32; 3],
        _constants: &[u32],
        _bindings: &[BufferBinding<'_>],
    ) -> Result<()> {
        Err(Status::new(
            StatusCode::Unimplemented,
            format!(
                "{} kernels run only from command buffers submitted to their device",
                B::DRIVER
            ),
        ))
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }

    /// By kernel symbol, else by the export's source name.
    fn lookup_export(&self, name: &str) -> Option<usize> {
        self.exports
            .iter()
            .position(|e| e.name == name)
            .or_else(|| {
                self.exports
                    .iter()
                    .position(|e| e.debug_name.as_deref() == Some(name))
            })
    }
}

/// A GPU device over a backend.
pub struct GpuDevice<B: Backend> {
    stream: Arc<Stream<B>>,
    /// Orders operations by their fences; operations whose wait is pending
    /// run on the queue's executor thread once it is reached, so no caller
    /// blocks on a wait fence.
    queue: Queue,
}

/// What queue operations use, shared with the operations still pending.
struct Stream<B: Backend> {
    backend: Arc<B>,
    allocator: Arc<GpuAllocator<B>>,
    options: GpuOptions,
    /// Serializes use of the stream (captures must not interleave, and the
    /// submitting thread and the executor thread may both issue work).
    lock: Mutex<()>,
}

impl<B: Backend> GpuDevice<B> {
    /// Wraps an opened backend.
    pub fn new(backend: B, options: GpuOptions) -> Arc<GpuDevice<B>> {
        let backend = Arc::new(backend);
        Arc::new(GpuDevice {
            stream: Arc::new(Stream {
                allocator: Arc::new(GpuAllocator {
                    pooled: options.async_allocations && backend.properties().memory_pools,
                    backend: backend.clone(),
                    statistics: SharedStatistics::default(),
                    pool_statistics: SharedStatistics::default(),
                }),
                backend,
                options,
                lock: Mutex::new(()),
            }),
            queue: Queue::new(DeferredExecution::ExecutorThread),
        })
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.stream.backend
    }
}

impl<B: Backend> Stream<B> {
    /// The device address of `length` bytes at `offset` of `buffer`.
    fn address(&self, buffer: &Buffer, offset: u64) -> Result<u64> {
        let base = if let Some(memory) = buffer.device_memory() {
            memory.device_address()
        } else {
            buffer
                .host_memory()
                .and_then(|m| self.backend.host_device_address(m))
                .ok_or_else(|| {
                    Status::new(
                        StatusCode::InvalidArgument,
                        format!(
                            "buffer was not allocated by a {} device allocator",
                            B::DRIVER
                        ),
                    )
                })?
        };
        Ok(base + buffer.byte_offset() + offset)
    }

    /// Runs a command buffer on the stream and waits for it.
    fn execute(&self, command_buffer: &CommandBuffer, table: &[DispatchBinding]) -> Result<()> {
        if !command_buffer.is_finalized() {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "command buffer must be finalized before execution",
            ));
        }
        // Every buffer the commands touch, resolved up front, so host
        // mappings are excluded while the device uses them.
        let mut used: Vec<Buffer> = Vec::new();
        let mut note = |binding: &BindingRef| -> Result<()> {
            used.push(resolve(binding, table)?.buffer.clone());
            Ok(())
        };
        for command in command_buffer.commands() {
            match command {
                Command::Dispatch {
                    bindings,
                    workgroup_count,
                    ..
                } => {
                    bindings.iter().try_for_each(&mut note)?;
                    if let WorkgroupCount::Indirect(params) = workgroup_count {
                        note(params)?;
                    }
                }
                Command::Fill { target, .. } | Command::Update { target, .. } => note(target)?,
                Command::Copy { source, target } => {
                    note(source)?;
                    note(target)?;
                }
                Command::Collective { send, recv, .. } => {
                    send.iter().chain(recv).try_for_each(&mut note)?;
                }
                _ => {}
            }
        }
        let _stream = self.lock.lock();
        // Indirect workgroup counts are read before the device takes the
        // buffers (a host transfer).
        let mut counts = Vec::new();
        for command in command_buffer.commands() {
            if let Command::Dispatch {
                workgroup_count: count @ WorkgroupCount::Indirect(_),
                ..
            } = command
            {
                counts.push(count.read(table)?);
            }
        }
        let guards: Vec<DeviceAccess<'_>> = used
            .iter()
            .filter(|b| b.host_memory().is_some())
            .map(Buffer::begin_device_access)
            .collect::<Result<_>>()?;
        let mut staging: Vec<Buffer> = Vec::new();
        let mut events: Vec<(Arc<Event>, bool)> = Vec::new();
        // Collectives run on the stream: a command buffer holding one is
        // issued directly rather than captured into a graph.
        let graph = self.options.recording == Recording::Graph
            && !command_buffer
                .commands()
                .iter()
                .any(|c| matches!(c, Command::Collective { .. }));
        if graph {
            self.backend.begin_capture()?;
        }
        let issued = self.issue(command_buffer, table, &counts, &mut staging, &mut events);
        let result = if graph {
            // Always end the capture, so the stream leaves capture mode.
            let captured = self.backend.end_capture();
            issued
                .and(captured)
                .and_then(|graph| self.backend.launch_graph(&graph))
        } else {
            issued
        };
        let synchronized = self.backend.synchronize();
        drop(guards);
        drop(staging);
        result?;
        synchronized?;
        for (event, signal) in events {
            if signal {
                event.signal();
            } else {
                event.reset();
            }
        }
        Ok(())
    }

    /// Issues one collective: its ranges resolved and checked as the host
    /// path checks them, then handed to the backend as device addresses.
    fn collective(
        &self,
        channel: &dyn Channel,
        collective: &Collective,
        send: &Option<BindingRef>,
        recv: &Option<BindingRef>,
        table: &[DispatchBinding],
    ) -> Result<()> {
        let (send, recv) = collective.checked_ranges(
            channel.rank(),
            channel.count(),
            send.as_ref().map(|b| resolve(b, table)).transpose()?,
            recv.as_ref().map(|b| resolve(b, table)).transpose()?,
        )?;
        let address = |range: Option<CollectiveRange<'_>>| {
            range
                .map(|r| self.address(r.binding.buffer, r.binding.offset))
                .transpose()
        };
        self.backend
            .collective(channel, collective, address(send)?, address(recv)?)
    }

    /// Issues the commands on the stream (or into the capture).
    fn issue(
        &self,
        command_buffer: &CommandBuffer,
        table: &[DispatchBinding],
        counts: &[[u32; 3]],
        staging: &mut Vec<Buffer>,
        events: &mut Vec<(Arc<Event>, bool)>,
    ) -> Result<()> {
        let mut indirect = counts.iter();
        for command in command_buffer.commands() {
            match command {
                Command::Dispatch {
                    executable,
                    ordinal,
                    workgroup_count,
                    constants,
                    bindings,
                } => {
                    let executable = executable
                        .as_any()
                        .and_then(|e| e.downcast_ref::<GpuExecutable<B>>())
                        .ok_or_else(|| {
                            Status::new(
                                StatusCode::InvalidArgument,
                                format!("executable was not created by a {} device", B::DRIVER),
                            )
                        })?;
                    let export = executable.exports.get(*ordinal).ok_or_else(|| {
                        Status::new(
                            StatusCode::OutOfRange,
                            format!(
                                "function id {ordinal} out of range; executable contains {} exports",
                                executable.exports.len()
                            ),
                        )
                    })?;
                    let grid = match workgroup_count {
                        WorkgroupCount::Direct(count) => *count,
                        WorkgroupCount::Indirect(_) => *indirect.next().ok_or_else(|| {
                            Status::new(StatusCode::Internal, "indirect count missing")
                        })?,
                    };
                    // A zero-sized grid is launched as upstream launches it:
                    // the driver refuses it (CUDA_ERROR_INVALID_VALUE), and
                    // the call fails with INVALID_ARGUMENT as upstream's does.
                    let addresses = bindings
                        .iter()
                        .map(|b| {
                            let b = resolve(b, table)?;
                            self.address(b.buffer, b.offset)
                        })
                        .collect::<Result<Vec<u64>>>()?;
                    let mut params = KernelParams::pack(export, &addresses, constants)?;
                    self.backend.launch(
                        executable.functions[*ordinal],
                        grid,
                        export.block_dims,
                        export.block_shared_memory_size,
                        &mut params,
                    )?;
                }
                Command::Fill { target, pattern } => {
                    let target = resolve(target, table)?;
                    let address = self.address(target.buffer, target.offset)?;
                    let width = pattern.len() as u64;
                    if address % width != 0 || target.length % width != 0 {
                        return Err(Status::new(
                            StatusCode::InvalidArgument,
                            format!(
                                "fill offset and length must be aligned to the {width} byte pattern"
                            ),
                        ));
                    }
                    if target.length > 0 {
                        self.backend.fill(address, target.length, pattern)?;
                    }
                }
                Command::Update { data, target } => {
                    let target = resolve(target, table)?;
                    let length = (data.len() as u64).min(target.length);
                    if length == 0 {
                        continue;
                    }
                    let host = self.allocator.allocate(
                        BufferParams {
                            memory_type: MemoryType::HOST_LOCAL,
                            usage: BufferUsage::TRANSFER,
                            access: MemoryAccess::ALL,
                            ..Default::default()
                        },
                        length,
                        false,
                    )?;
                    host.write(0, &data[..length as usize])?;
                    let source = self.address(&host, 0)?;
                    let address = self.address(target.buffer, target.offset)?;
                    self.backend.copy(address, source, length)?;
                    staging.push(host);
                }
                Command::Copy { source, target } => {
                    let source = resolve(source, table)?;
                    let target = resolve(target, table)?;
                    if source.length != target.length {
                        return Err(Status::new(
                            StatusCode::InvalidArgument,
                            format!(
                                "copy lengths differ (source {}, target {})",
                                source.length, target.length
                            ),
                        ));
                    }
                    if source.length > 0 {
                        self.backend.copy(
                            self.address(target.buffer, target.offset)?,
                            self.address(source.buffer, source.offset)?,
                            source.length,
                        )?;
                    }
                }
                // One stream runs everything in order: barriers and event
                // waits are implied; event states are published after the
                // stream is idle.
                Command::Barrier | Command::WaitEvents(_) => {}
                Command::Collective {
                    channel,
                    collective,
                    send,
                    recv,
                } => self
                    .collective(&**channel, collective, send, recv, table)
                    .map_err(|status| status.annotate(collective.describe(&**channel)))?,
                Command::SignalEvent(event) => events.push((event.clone(), true)),
                Command::ResetEvent(event) => events.push((event.clone(), false)),
            }
        }
        Ok(())
    }
}

impl<B: Backend> Device for GpuDevice<B> {
    fn id(&self) -> &str {
        B::DRIVER
    }

    fn allocator(&self) -> Arc<dyn Allocator> {
        self.stream.allocator.clone()
    }

    fn query_i64(&self, category: &str, key: &str) -> Result<i64> {
        match (category, key) {
            ("hal.device.id", pattern) => Ok(i64::from(match_pattern(B::DRIVER, pattern))),
            ("hal.executable.format", format) => Ok(i64::from(format == B::FORMAT)),
            _ => Err(Status::new(
                StatusCode::NotFound,
                format!("unknown device configuration key value '{category} :: {key}'"),
            )),
        }
    }

    /// Executable-level constants are accepted and ignored: the CUDA and
    /// HIP executable formats have no place for them (as upstream's
    /// drivers).
    fn create_executable(
        &self,
        format: &str,
        data: &[u8],
        _constants: &[u32],
    ) -> Result<Arc<dyn Executable>> {
        if format != B::FORMAT {
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!(
                    "no executable loader for format '{format}' on {} (supported: {})",
                    B::DRIVER,
                    B::FORMAT
                ),
            ));
        }
        let executable = GpuExecutable::<B>::load(&self.stream.backend, data)
            .map_err(|e| e.annotate(format!("while loading a '{format}' executable")))?;
        Ok(Arc::new(executable))
    }

    fn queue_alloca(
        &self,
        wait: &Fence,
        signal: &Fence,
        params: BufferParams,
        size: u64,
    ) -> Result<Buffer> {
        // The buffer exists at once (as upstream returns it at once); its
        // memory must not be used before `signal` anyway, so the queue only
        // orders the signal.
        let allocated = {
            let stream = &self.stream;
            let _stream = stream.lock.lock();
            stream
                .allocator
                .allocate(params, size, stream.options.async_allocations)
                .and_then(|buffer| stream.backend.synchronize().map(|()| buffer))
        };
        match allocated {
            Ok(buffer) => {
                self.queue.submit(wait, signal, Box::new(|| Ok(())))?;
                Ok(buffer)
            }
            Err(status) => {
                signal.fail(status.clone());
                Err(status)
            }
        }
    }

    fn queue_dealloca(&self, wait: &Fence, signal: &Fence, buffer: &Buffer) -> Result<()> {
        // The memory is released with its last reference (stream-ordered
        // for pool allocations).
        self.queue.dealloca(wait, signal, buffer)
    }

    fn queue_execute(
        &self,
        wait: &Fence,
        signal: &Fence,
        command_buffer: Option<&CommandBuffer>,
        binding_table: &[DispatchBinding],
    ) -> Result<()> {
        let stream = self.stream.clone();
        let submitted = self.queue.execute(
            wait,
            signal,
            command_buffer,
            binding_table,
            &*self.stream.allocator,
            move |cb, table| stream.execute(cb, table),
        );
        match submitted {
            // A failure while the work ran has failed `signal`: it reaches
            // the program through its waits, as from upstream's
            // asynchronous GPU queues, not from the submission.
            Err(_) if signal.query().is_err() => Ok(()),
            other => other,
        }
    }

    fn queue_host_call(
        &self,
        wait: &Fence,
        signal: &Fence,
        op: Box<dyn FnOnce() -> Result<()> + Send>,
    ) -> Result<()> {
        self.queue.submit(wait, signal, op)
    }

    /// The backend's channels ([`Backend::create_channel`]): NCCL on CUDA;
    /// UNIMPLEMENTED where the backend has none.
    fn create_channel(&self, params: &ChannelParams) -> Result<Arc<dyn Channel>> {
        self.stream.backend.create_channel(params)
    }
}
