//! The `hal_inline` VM module (version 0): the HAL as programs compiled for
//! the inline execution models (`--iree-execution-model=inline-static` and
//! `inline-dynamic`) use it, with no device, queues or command buffers.
//!
//! Buffers come from one host allocator, and the program works on their
//! bytes directly: `hal_inline.buffer.storage` hands back a `!vm.buffer`
//! over a `!hal.buffer`'s memory, which the program reads and writes with
//! `vm.buffer.*` ops and binds to dispatches (`hal_loader`). `!hal.buffer`
//! and `!hal.buffer_view` are the `hal` module's own reference types, so
//! buffer views move freely between this module, the tools and the `hal`
//! module's helpers; the exports the two modules share (`buffer.length`,
//! `buffer.subspan`, `buffer_view.*`) are the same code
//! ([`iree_modules_hal::buffer_view_exports`]).
//!
//! Every argument bytecode hands in is checked; bad input is a status
//! error.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{Allocator, Buffer, BufferParams, BufferUsage, MemoryAccess, MemoryType};
use iree_modules_hal::{
    buffer_type, buffer_view_exports, deref, size_arg, string_arg, DebugSink, HalBuffer,
};
use iree_vm::buffer::{buffer_type as vm_buffer_type, Buffer as VmBuffer};
use iree_vm::native::NativeModuleBuilder;
use iree_vm::{Module, Ref};

/// The module version (`IREE_HAL_INLINE_MODULE_VERSION_LATEST`).
pub const HAL_INLINE_MODULE_VERSION: u32 = 0;

/// Every export with its calling convention, as upstream declares them.
pub const EXPORTS: &[(&str, &str)] = &[
    ("buffer.allocate", "0iI_rr"),
    ("buffer.allocate.initialized", "0irII_rr"),
    ("buffer.length", "0r_I"),
    ("buffer.storage", "0r_r"),
    ("buffer.subspan", "0rII_r"),
    ("buffer.wrap", "0rII_r"),
    ("buffer_view.assert", "0rriiCID_v"),
    ("buffer_view.buffer", "0r_r"),
    ("buffer_view.create", "0rIIiiCID_r"),
    ("buffer_view.dim", "0ri_I"),
    ("buffer_view.element_type", "0r_i"),
    ("buffer_view.encoding_type", "0r_i"),
    ("buffer_view.rank", "0r_i"),
    ("buffer_view.trace", "0rCrD_v"),
    ("device.query.i64", "0rr_iI"),
];

/// Per-context state: where buffers come from and where traces go.
pub struct HalInlineState {
    allocator: Arc<dyn Allocator>,
    debug_sink: Option<DebugSink>,
}

/// Builds the `hal_inline` module allocating from `allocator` (host
/// memory: the program maps every buffer) and sending
/// `hal_inline.buffer_view.trace` to `debug_sink` (none: dropped).
/// Register the `hal` types first ([`iree_modules_hal::register_types`]).
pub fn create_hal_inline_module(
    allocator: Arc<dyn Allocator>,
    debug_sink: Option<DebugSink>,
) -> Result<Arc<dyn Module>> {
    let b = NativeModuleBuilder::<HalInlineState>::new("hal_inline", HAL_INLINE_MODULE_VERSION);
    let b = buffer_view_exports(b, |state: &HalInlineState| state.debug_sink.as_ref())?;
    let b = b
        .export(
            "buffer.allocate",
            "0iI_rr",
            |state: &HalInlineState, (alignment, length): (i32, i64)| {
                let buffer = allocate(state, alignment, size_arg(length, "allocation size")?)?;
                let storage = storage_of(&buffer)?;
                Ok((Ref::new(HalBuffer(buffer)), storage))
            },
        )?
        .export(
            "buffer.allocate.initialized",
            "0irII_rr",
            |state: &HalInlineState,
             (alignment, source, offset, length): (i32, Option<Ref>, i64, i64)| {
                let source: &VmBuffer = deref(&source, vm_buffer_type(), "source buffer")?;
                let data = source.read_bytes(
                    size_arg(offset, "source offset")? as usize,
                    size_arg(length, "source length")? as usize,
                )?;
                let buffer = allocate(state, alignment, data.len() as u64)?;
                let storage = storage_of(&buffer)?;
                deref::<VmBuffer>(&Some(storage.clone()), vm_buffer_type(), "storage")?
                    .write_bytes(0, &data)?;
                Ok((Ref::new(HalBuffer(buffer)), storage))
            },
        )?
        .export(
            "buffer.wrap",
            "0rII_r",
            |_: &HalInlineState,
             (source, _offset, _length): (Option<Ref>, i64, i64)|
             -> Result<Ref> {
                deref::<VmBuffer>(&source, vm_buffer_type(), "source buffer")?;
                Err(Status::new(
                    StatusCode::Unimplemented,
                    "vm->hal buffer wrapping not yet implemented",
                ))
            },
        )?
        .export(
            "buffer.storage",
            "0r_r",
            |_: &HalInlineState, (buffer,): (Option<Ref>,)| {
                storage_of(&deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?.0)
            },
        )?
        .export(
            "device.query.i64",
            "0rr_iI",
            |_: &HalInlineState, (category, key): (Option<Ref>, Option<Ref>)| {
                string_arg(&category, "category")?;
                string_arg(&key, "key")?;
                // No queryable configuration: every key is unknown.
                Ok((0i32, 0i64))
            },
        )?;
    Ok(b.build(move |_| {
        Ok(HalInlineState {
            allocator: allocator.clone(),
            debug_sink: debug_sink.clone(),
        })
    }))
}

/// A host buffer for the program: mappable, usable by transfers and
/// dispatches, of `length` bytes aligned to `alignment` (0: the
/// allocator's own).
fn allocate(state: &HalInlineState, alignment: i32, length: u64) -> Result<Buffer> {
    let params = BufferParams {
        usage: BufferUsage::TRANSFER | BufferUsage::DISPATCH_STORAGE | BufferUsage::MAPPING,
        access: MemoryAccess::ALL,
        memory_type: MemoryType::OPTIMAL | MemoryType::HOST_LOCAL,
        queue_affinity: 0,
        min_alignment: alignment as u32 as u64,
    };
    state.allocator.allocate_buffer(params, length)
}

/// A `!vm.buffer` over `buffer`'s bytes, in place: what the program writes
/// through it is the buffer's contents. It keeps the buffer's allocation
/// alive, and is writable when the buffer allows writes.
fn storage_of(buffer: &Buffer) -> Result<Ref> {
    let length = usize::try_from(buffer.byte_length()).map_err(|_| {
        Status::new(
            StatusCode::OutOfRange,
            "buffer is too large to map on this host",
        )
    })?;
    // The address is all that is kept of the access: the storage outlives
    // this call, and host mappings of the buffer (the tools reading a
    // result) must work while it lives.
    let base = buffer.begin_device_access()?.base_ptr();
    let ptr = base.wrapping_add(buffer.byte_offset() as usize);
    let writable = buffer.allowed_access().contains(MemoryAccess::WRITE);
    // SAFETY: `ptr..ptr + length` is the buffer's range of a host
    // allocation whose address never changes, and the allocation allots
    // whole `HOST_ACCESS_WORD` (4-byte) words around every range it holds,
    // so the aligned words overlapping the range are inside it and valid for
    // reads and writes; the clone of `buffer` given as owner keeps the
    // allocation alive as long as the VM buffer. Rust code reaches the bytes
    // otherwise only through the HAL buffer's host mappings, which the
    // program and the tools never make while the program runs on the bytes
    // (the VM accesses them atomically, kernels only inside a dispatch call).
    Ok(Ref::new(unsafe {
        VmBuffer::external(ptr, length, writable, buffer.clone())
    }))
}
