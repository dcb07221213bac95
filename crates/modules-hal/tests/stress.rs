//! Four threads invoke one context's functions 1000 times each on one
//! `local-task` device: results stay correct, nothing deadlocks (a watchdog
//! fails the test instead of hanging it), and nothing leaks (every device
//! byte allocated is freed, and the device's only references left are ours
//! and the context's).
//!
//! The module uses the coarse-fences ABI. Half the calls pass a wait fence
//! that is already signaled (their queue operations run at submission);
//! the other half pass one the calling thread signals only after the call
//! returned, so their queue operations are deferred and run on the device's
//! queue executor while other threads submit.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use iree_base::Result;
use iree_hal::{
    BufferParams, BufferUsage, BufferView, Device, Driver, ElementType, EncodingType, Fence,
    MemoryType,
};
use iree_hal_local::LocalTaskDriver;
use iree_modules_hal::{create_hal_module, register_types, HalBufferView, HalFence};
use iree_vm::{Context, Instance, Module, Ref, Value};
use iree_vm_bytecode::BytecodeModule;

const THREADS: usize = 4;
const CALLS_PER_THREAD: usize = 1000;

fn testdata(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../testdata/llvm-cpu/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn f32_view(device: &Arc<dyn Device>, shape: &[usize], values: &[f32]) -> Result<Value> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DEFAULT,
        ..Default::default()
    };
    let buffer = device
        .allocator()
        .allocate_buffer(params, bytes.len() as u64)?;
    buffer.write(0, &bytes)?;
    let view = BufferView::new(
        buffer,
        shape.to_vec(),
        ElementType::FLOAT_32,
        EncodingType::DENSE_ROW_MAJOR,
    )?;
    Ok(Value::from(Ref::new(HalBufferView(view))))
}

fn read_f32s(value: &Value) -> Vec<f32> {
    let Value::Ref(Some(r)) = value else {
        panic!("expected a buffer view, got {value:?}");
    };
    let view = &r.downcast::<HalBufferView>().expect("a buffer view").0;
    let mut bytes = vec![0u8; view.element_count() * 4];
    view.buffer().read(0, &mut bytes).unwrap();
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `mm` of row-scaled inputs with an already-signaled wait fence (its queue
/// operations run at submission) and the null signal fence; returns the
/// result after a host wait on a fence of our own.
fn call_ready(context: &Context, device: &Arc<dyn Device>, k: f32) -> Vec<f32> {
    let function = context.lookup_function("mm").unwrap();
    let a = f32_view(
        device,
        &[2, 3],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0].map(|v| v * k),
    )
    .unwrap();
    let b = f32_view(device, &[3, 2], &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]).unwrap();
    let wait = Fence::with_new_semaphore();
    wait.signal().unwrap();
    let signal = Fence::with_new_semaphore();
    let fence = |f: &Fence| Value::from(Ref::new(HalFence(f.clone())));
    let results = context
        .invoke(&function, &[a, b, fence(&wait), fence(&signal)])
        .unwrap();
    signal.wait(None).unwrap();
    read_f32s(&results[0])
}

/// `mm16` through the coarse-fences ABI with a wait fence signaled only
/// after the call returns; waits on the signal fence, returns the result.
fn call_async(context: &Context, device: &Arc<dyn Device>, k: f32) -> Vec<f32> {
    let function = context.lookup_function("mm16").unwrap();
    let a = f32_view(device, &[16, 16], &[k; 256]).unwrap();
    let b = f32_view(device, &[16, 16], &[0.5; 256]).unwrap();
    let wait = Fence::with_new_semaphore();
    let signal = Fence::with_new_semaphore();
    let fence = |f: &Fence| Value::from(Ref::new(HalFence(f.clone())));
    let results = context
        .invoke(&function, &[a, b, fence(&wait), fence(&signal)])
        .unwrap();
    wait.signal().unwrap();
    signal.wait(None).unwrap();
    read_f32s(&results[0])
}

#[test]
fn four_threads_share_one_context_and_one_local_task_device() {
    let instance = Instance::new();
    register_types(&instance).unwrap();
    let device = LocalTaskDriver::default().create_device("").unwrap();
    let hal = create_hal_module(vec![device.clone()]).unwrap();
    let module = BytecodeModule::from_vec(&instance, testdata("async_matmul.vmfb")).unwrap();
    let context =
        Arc::new(Context::with_modules(instance, [hal, module as Arc<dyn Module>]).unwrap());

    let (done, finished) = mpsc::channel();
    let workers: Vec<_> = (0..THREADS)
        .map(|thread| {
            let (context, device, done) = (context.clone(), device.clone(), done.clone());
            std::thread::spawn(move || {
                for call in 0..CALLS_PER_THREAD {
                    let k = (thread * CALLS_PER_THREAD + call) as f32;
                    if call % 2 == 0 {
                        let expected = [58.0, 64.0, 139.0, 154.0].map(|v| v * k);
                        assert_eq!(
                            call_ready(&context, &device, k),
                            expected,
                            "thread {thread} call {call}"
                        );
                    } else {
                        // Each element: 16 * k * 0.5.
                        assert_eq!(
                            call_async(&context, &device, k),
                            vec![8.0 * k; 256],
                            "thread {thread} call {call}"
                        );
                    }
                }
                done.send(thread).unwrap();
            })
        })
        .collect();
    drop(done);
    for _ in 0..THREADS {
        finished
            .recv_timeout(Duration::from_secs(300))
            .expect("a thread failed, or did not finish within 300 s (deadlock)");
    }
    for worker in workers {
        worker.join().unwrap();
    }

    // No leaks: every byte the device allocated has been freed once the
    // results are gone, and only the context (through the hal module) and
    // this test still hold the device.
    drop(context);
    let stats = device.allocator().statistics();
    assert_eq!(
        stats.device_bytes_allocated + stats.host_bytes_allocated,
        stats.device_bytes_freed + stats.host_bytes_freed,
        "live bytes remain: {stats:?}"
    );
    assert!(stats.device_bytes_allocated > 0);
    assert_eq!(Arc::strong_count(&device), 1, "device references leaked");
}
