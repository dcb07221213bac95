//! Fuzzes the HAL replay reader: `.ireereplay` files through both dumps
//! (`iree-dump-replay --format=text` and `jsonl`, which check every record
//! and payload layout) and through the executor, against a device that
//! runs nothing (queue operations only signal; executables never load;
//! allocations over 1 MiB are refused).
//!
//! Besides "no panic": the two dumps accept exactly the same files.
#![no_main]

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{
    Allocator, AllocatorStatistics, Buffer, BufferCompatibility, BufferParams, CommandBuffer,
    Device, DispatchBinding, Executable, Fence, HeapAllocator, MemoryHeap,
};
use iree_hal_replay::execute::ExecuteOptions;
use iree_hal_replay::{dump, DumpFormat, Plan};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

const MAX_BUFFER: u64 = 1 << 20;

fn too_large(size: u64) -> Result<()> {
    if size > MAX_BUFFER {
        return Err(Status::new(StatusCode::ResourceExhausted, "fuzzing: buffer too large"));
    }
    Ok(())
}

struct SmallAllocator(Arc<HeapAllocator>);

impl Allocator for SmallAllocator {
    fn memory_heaps(&self) -> Vec<MemoryHeap> {
        self.0.memory_heaps()
    }
    fn query_buffer_compatibility(&self, params: &mut BufferParams, size: u64) -> BufferCompatibility {
        self.0.query_buffer_compatibility(params, size)
    }
    fn allocate_buffer(&self, params: BufferParams, size: u64) -> Result<Buffer> {
        too_large(size)?;
        self.0.allocate_buffer(params, size)
    }
    fn statistics(&self) -> AllocatorStatistics {
        self.0.statistics()
    }
}

/// A device that runs nothing.
struct NullDevice(Arc<SmallAllocator>);

impl Device for NullDevice {
    fn id(&self) -> &str {
        "null"
    }
    fn allocator(&self) -> Arc<dyn Allocator> {
        self.0.clone()
    }
    fn query_i64(&self, _: &str, _: &str) -> Result<i64> {
        Err(Status::from_code(StatusCode::NotFound))
    }
    fn create_executable(&self, _: &str, _: &[u8], _: &[u32]) -> Result<Arc<dyn Executable>> {
        Err(Status::new(StatusCode::Unimplemented, "fuzzing: no executables"))
    }
    fn queue_alloca(&self, _: &Fence, signal: &Fence, params: BufferParams, size: u64) -> Result<Buffer> {
        let buffer = self.0.allocate_buffer(params, size)?;
        signal.signal()?;
        Ok(buffer)
    }
    fn queue_dealloca(&self, _: &Fence, signal: &Fence, _: &Buffer) -> Result<()> {
        signal.signal()
    }
    fn queue_execute(&self, _: &Fence, signal: &Fence, _: Option<&CommandBuffer>, _: &[DispatchBinding]) -> Result<()> {
        signal.signal()
    }
    fn queue_host_call(&self, _: &Fence, signal: &Fence, _: Box<dyn FnOnce() -> Result<()> + Send>) -> Result<()> {
        signal.signal()
    }
}

fuzz_target!(|data: &[u8]| {
    let text = dump(data, DumpFormat::Text, &mut std::io::sink()).is_ok();
    let jsonl = dump(data, DumpFormat::Jsonl, &mut std::io::sink()).is_ok();
    assert_eq!(text, jsonl, "the dumps disagree on whether the file is valid");
    let Ok(plan) = Plan::new(data) else {
        return;
    };
    let device: Arc<dyn Device> = Arc::new(NullDevice(Arc::new(SmallAllocator(HeapAllocator::new()))));
    let _ = plan.execute(&[device], &mut ExecuteOptions::default());
});
