//! Capturing an embedder's calls: a `Session` on a device wrapped by a
//! [`Recorder`] is recorded like the tools' runs, and the replay of its
//! capture reads back what the session's call returned.

use std::sync::Arc;

use iree_hal::Device;
use iree_hal_local::LocalDevice;
use iree_hal_replay::execute::{ExecuteOptions, HostRead};
use iree_hal_replay::{Plan, Recorder, RecorderOptions};
use iree_runtime::{Instance, Session, Tensor};

#[test]
fn a_session_on_a_recorded_device_is_captured() {
    let path = std::env::temp_dir().join(format!(
        "iree-session-capture-{}.ireereplay",
        std::process::id()
    ));
    let recorder = Recorder::create(&path, RecorderOptions::default()).unwrap();
    let instance = Instance::new();
    let inner: Arc<dyn Device> = Arc::new(LocalDevice::new());
    let mut session = Session::with_device(&instance, recorder.wrap(inner));
    session
        .load_module_file(format!(
            "{}/../../testdata/llvm-cpu/expected_output.vmfb",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
    let a = Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let b = Tensor::from_slice(&[4], &[5.0f32, 6.0, 7.0, 8.0]).unwrap();
    recorder.scope_begin("execute");
    let results = session.call("mul", &[a.into(), b.into()]).unwrap();
    let product = Tensor::try_from(results[0].clone())
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    recorder.scope_end("execute");
    assert_eq!(product, [5.0, 12.0, 21.0, 32.0]);
    drop((results, session));
    recorder.close().unwrap();

    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let plan = Plan::new(&bytes).unwrap();
    let mut reads: Vec<Vec<u8>> = Vec::new();
    let mut scopes = 0;
    let mut options = ExecuteOptions {
        on_host_read: Some(Box::new(|read: &HostRead<'_>| {
            let mut bytes = vec![0u8; read.length as usize];
            read.buffer.read(read.offset, &mut bytes)?;
            reads.push(bytes);
            Ok(())
        })),
        on_scope: Some(Box::new(|_| {
            scopes += 1;
            Ok(())
        })),
        ..ExecuteOptions::default()
    };
    let device: Arc<dyn Device> = Arc::new(LocalDevice::new());
    plan.execute(&[device], &mut options).unwrap();
    drop(options);
    assert_eq!(scopes, 2);
    let expected: Vec<u8> = product.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert!(
        reads
            .iter()
            .any(|r| r.windows(16).any(|w| w == expected.as_slice())),
        "{reads:?}"
    );
}
