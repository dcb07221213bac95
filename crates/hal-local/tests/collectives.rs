//! Collectives over MPI on both local devices: every kind, reduction and
//! element type over 2 and 4 ranks, `split`, ranks that disagree on sizes,
//! and a failing rank ending the job. The test starts itself under
//! `mpirun` (one process per rank, `IREE_COLLECTIVES_CHILD` set) and is
//! reported as ignored, with the reason, where `mpirun` is missing; without a
//! launcher the single-process (rank 0 of 1) checks run.

use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use iree_base::StatusCode;
use iree_hal::channel::{
    run_collective, ChannelParams, Collective, CollectiveElementType as Ty, CollectiveKind,
    CollectiveOp, Reduction, NO_COLOR,
};
use iree_hal::math::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
use iree_hal::{
    BindingRef, Buffer, BufferUsage, Channel, CommandBuffer, Device, Fence, MemoryAccess,
    MemoryType,
};
use iree_hal_local::LocalDevice;
use iree_test_support::{require_mpirun, TestResult};

const CHILD: &str = "IREE_COLLECTIVES_CHILD";

const TYPES: [Ty; 12] = [
    Ty::Sint8,
    Ty::Uint8,
    Ty::Sint16,
    Ty::Uint16,
    Ty::Sint32,
    Ty::Uint32,
    Ty::Sint64,
    Ty::Uint64,
    Ty::Float16,
    Ty::Float32,
    Ty::Float64,
    Ty::BFloat16,
];

const REDUCTIONS: [Reduction; 5] = [
    Reduction::Sum,
    Reduction::Product,
    Reduction::Minimum,
    Reduction::Maximum,
    Reduction::Average,
];

fn encode(ty: Ty, values: &[f64]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|&v| -> Vec<u8> {
            match ty {
                Ty::Sint8 => (v as i8).to_le_bytes().to_vec(),
                Ty::Uint8 => (v as u8).to_le_bytes().to_vec(),
                Ty::Sint16 => (v as i16).to_le_bytes().to_vec(),
                Ty::Uint16 => (v as u16).to_le_bytes().to_vec(),
                Ty::Sint32 => (v as i32).to_le_bytes().to_vec(),
                Ty::Uint32 => (v as u32).to_le_bytes().to_vec(),
                Ty::Sint64 => (v as i64).to_le_bytes().to_vec(),
                Ty::Uint64 => (v as u64).to_le_bytes().to_vec(),
                Ty::Float16 => f32_to_f16(v as f32).to_le_bytes().to_vec(),
                Ty::BFloat16 => f32_to_bf16(v as f32).to_le_bytes().to_vec(),
                Ty::Float32 => (v as f32).to_le_bytes().to_vec(),
                Ty::Float64 => v.to_le_bytes().to_vec(),
            }
        })
        .collect()
}

fn decode(ty: Ty, bytes: &[u8]) -> Vec<f64> {
    let w = ty.byte_count() as usize;
    bytes
        .chunks_exact(w)
        .map(|c| match ty {
            Ty::Sint8 => c[0] as i8 as f64,
            Ty::Uint8 => c[0] as f64,
            Ty::Sint16 => i16::from_le_bytes([c[0], c[1]]) as f64,
            Ty::Uint16 => u16::from_le_bytes([c[0], c[1]]) as f64,
            Ty::Sint32 => i32::from_le_bytes(c.try_into().unwrap()) as f64,
            Ty::Uint32 => u32::from_le_bytes(c.try_into().unwrap()) as f64,
            Ty::Sint64 => i64::from_le_bytes(c.try_into().unwrap()) as f64,
            Ty::Uint64 => u64::from_le_bytes(c.try_into().unwrap()) as f64,
            Ty::Float16 => f16_to_f32(u16::from_le_bytes([c[0], c[1]])) as f64,
            Ty::BFloat16 => bf16_to_f32(u16::from_le_bytes([c[0], c[1]])) as f64,
            Ty::Float32 => f32::from_le_bytes(c.try_into().unwrap()) as f64,
            Ty::Float64 => f64::from_le_bytes(c.try_into().unwrap()),
        })
        .collect()
}

fn is_float(ty: Ty) -> bool {
    matches!(ty, Ty::Float16 | Ty::BFloat16 | Ty::Float32 | Ty::Float64)
}

/// Reduction input of rank `r`, element `i`: small, exact in every type
/// (products of 4 ranks stay below 127).
fn v(r: usize, i: usize) -> f64 {
    (r + 1 + i % 2) as f64
}

/// Data of rank `r`, element `i` for the moving kinds (distinct per rank
/// and position, exact in every type).
fn u(r: usize, i: usize) -> f64 {
    (r * 16 + i % 16) as f64
}

fn reduce(ty: Ty, reduction: Reduction, values: impl Iterator<Item = f64>) -> f64 {
    let values: Vec<f64> = values.collect();
    let n = values.len() as f64;
    match reduction {
        Reduction::Sum | Reduction::None => values.iter().sum(),
        Reduction::Product => values.iter().product(),
        Reduction::Minimum => values.iter().cloned().fold(f64::MAX, f64::min),
        Reduction::Maximum => values.iter().cloned().fold(f64::MIN, f64::max),
        Reduction::Average if is_float(ty) => values.iter().sum::<f64>() / n,
        Reduction::Average => (values.iter().sum::<f64>() / n).trunc(),
    }
}

fn host_buffer(bytes: &[u8]) -> Buffer {
    let b = Buffer::allocate_host(
        bytes.len().max(1) as u64,
        MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE,
        BufferUsage::DEFAULT,
        MemoryAccess::ALL,
    )
    .unwrap();
    b.write(0, bytes).unwrap();
    b
}

fn direct(b: &Buffer) -> BindingRef {
    BindingRef::Direct {
        buffer: b.clone(),
        offset: 0,
        length: b.byte_length(),
    }
}

/// Records `collective` in a command buffer and runs it on `device`.
fn execute(
    device: &LocalDevice,
    channel: &Arc<dyn Channel>,
    collective: Collective,
    send: &Buffer,
    recv: &Buffer,
) -> iree_base::Result<()> {
    let mut cb = CommandBuffer::new(0);
    cb.collective(
        channel.clone(),
        collective,
        Some(direct(send)),
        Some(direct(recv)),
    )?;
    cb.finalize()?;
    let signal = Fence::with_new_semaphore();
    let submitted = device.queue_execute(&Fence::new(), &signal, Some(&cb), &[]);
    let waited = signal.wait(None);
    submitted.and(waited)
}

fn op(kind: CollectiveKind, reduction: Reduction, ty: Ty) -> CollectiveOp {
    CollectiveOp {
        kind,
        reduction,
        element_type: ty,
    }
}

/// Runs one collective and checks rank `r`'s receive range against
/// `expected` (`None`: left as it was, zeros).
#[allow(clippy::too_many_arguments)]
fn check(
    device: &LocalDevice,
    channel: &Arc<dyn Channel>,
    ty: Ty,
    o: CollectiveOp,
    param: u32,
    count: usize,
    send: &[f64],
    recv_len: usize,
    expected: &[f64],
) {
    let send_buffer = host_buffer(&encode(ty, send));
    let recv_buffer = host_buffer(&vec![0u8; recv_len * ty.byte_count() as usize]);
    let collective = Collective {
        op: o,
        param,
        element_count: count as u64,
    };
    execute(device, channel, collective, &send_buffer, &recv_buffer).unwrap_or_else(|e| {
        panic!(
            "{:?} {:?} {:?} on {}: {e}",
            o.kind,
            o.reduction,
            ty,
            device.id()
        )
    });
    let mut bytes = vec![0u8; recv_len * ty.byte_count() as usize];
    recv_buffer.read(0, &mut bytes).unwrap();
    let got = decode(ty, &bytes);
    // Expected values are exact in every type but rounded like the type.
    let want = decode(ty, &encode(ty, expected));
    assert_eq!(
        got,
        want,
        "{:?} {:?} {:?} on {} rank {} of {}",
        o.kind,
        o.reduction,
        ty,
        device.id(),
        channel.rank(),
        channel.count()
    );
}

/// Every kind x reduction x type on one device, as rank `r` of `n`.
fn check_all(device: &LocalDevice) -> usize {
    let channel = device
        .create_channel(&ChannelParams::from_environment())
        .unwrap();
    let (r, n) = (channel.rank() as usize, channel.count() as usize);
    let c = 4 * n;
    let mut checks = 0;
    for ty in TYPES {
        let mine_u: Vec<f64> = (0..c).map(|i| u(r, i)).collect();
        // all_gather
        let expected: Vec<f64> = (0..n * c).map(|k| u(k / c, k % c)).collect();
        let o = op(CollectiveKind::AllGather, Reduction::None, ty);
        check(device, &channel, ty, o, 0, n * c, &mine_u, n * c, &expected);
        // all_to_all: part j of rank r's result is part r of rank j's data.
        let part = c / n;
        let expected: Vec<f64> = (0..c).map(|k| u(k / part, r * part + k % part)).collect();
        let o = op(CollectiveKind::AllToAll, Reduction::None, ty);
        check(device, &channel, ty, o, 0, c, &mine_u, c, &expected);
        // broadcast from the last rank (its receive range gets a copy too).
        let root = n - 1;
        let expected: Vec<f64> = (0..c).map(|i| u(root, i)).collect();
        let o = op(CollectiveKind::Broadcast, Reduction::None, ty);
        check(
            device,
            &channel,
            ty,
            o,
            root as u32,
            c,
            &mine_u,
            c,
            &expected,
        );
        // send_recv around a ring.
        if n > 1 {
            let (target, source) = ((r + 1) % n, (r + n - 1) % n);
            let param = (target as u32) | ((source as u32) << 16);
            let expected: Vec<f64> = (0..c).map(|i| u(source, i)).collect();
            let o = op(CollectiveKind::SendRecv, Reduction::None, ty);
            check(device, &channel, ty, o, param, c, &mine_u, c, &expected);
            // A chain: rank 0 receives nothing (zeros), the last sends
            // nothing.
            let target = if r + 1 < n { r as u32 + 1 } else { 0xffff };
            let source = if r > 0 { r as u32 - 1 } else { 0xffff };
            let expected: Vec<f64> = (0..c)
                .map(|i| if r > 0 { u(r - 1, i) } else { 0.0 })
                .collect();
            check(
                device,
                &channel,
                ty,
                o,
                target | (source << 16),
                c,
                &mine_u,
                c,
                &expected,
            );
            // send / recv between pairs (an odd rank count leaves the last
            // rank out).
            if r % 2 == 0 && r + 1 < n {
                let o = op(CollectiveKind::Send, Reduction::None, ty);
                let send_buffer = host_buffer(&encode(ty, &mine_u));
                let mut cb = CommandBuffer::new(0);
                cb.collective(
                    channel.clone(),
                    Collective {
                        op: o,
                        param: r as u32 + 1,
                        element_count: c as u64,
                    },
                    Some(direct(&send_buffer)),
                    None,
                )
                .unwrap();
                cb.finalize().unwrap();
                let signal = Fence::with_new_semaphore();
                device
                    .queue_execute(&Fence::new(), &signal, Some(&cb), &[])
                    .and(signal.wait(None))
                    .unwrap();
            } else if r % 2 == 1 {
                let o = op(CollectiveKind::Recv, Reduction::None, ty);
                let expected: Vec<f64> = (0..c).map(|i| u(r - 1, i)).collect();
                check(device, &channel, ty, o, r as u32 - 1, c, &[], c, &expected);
            }
            checks += 4;
        }
        checks += 3;
        let mine_v: Vec<f64> = (0..c).map(|i| v(r, i)).collect();
        for reduction in REDUCTIONS {
            // all_reduce
            let expected: Vec<f64> = (0..c)
                .map(|i| reduce(ty, reduction, (0..n).map(|j| v(j, i))))
                .collect();
            let o = op(CollectiveKind::AllReduce, reduction, ty);
            check(device, &channel, ty, o, 0, c, &mine_v, c, &expected);
            // reduce onto rank min(1, n - 1); the others' receive ranges
            // stay untouched.
            let root = 1.min(n - 1);
            let expected_root: Vec<f64> = if r == root {
                expected.clone()
            } else {
                vec![0.0; c]
            };
            let o = op(CollectiveKind::Reduce, reduction, ty);
            check(
                device,
                &channel,
                ty,
                o,
                root as u32,
                c,
                &mine_v,
                c,
                &expected_root,
            );
            // reduce_scatter: rank r keeps block r of n * c elements.
            let send: Vec<f64> = (0..n * c).map(|i| v(r, i + i / c)).collect();
            let expected: Vec<f64> = (0..c)
                .map(|k| {
                    let i = r * c + k;
                    reduce(ty, reduction, (0..n).map(|j| v(j, i + i / c)))
                })
                .collect();
            let o = op(CollectiveKind::ReduceScatter, reduction, ty);
            check(device, &channel, ty, o, 0, c, &send, c, &expected);
            checks += 3;
        }
    }
    checks
}

/// `split`: colors by parity, keys reversing the order; no color gives
/// no channel.
fn check_split(device: &LocalDevice) {
    let channel = device
        .create_channel(&ChannelParams::from_environment())
        .unwrap();
    let (r, n) = (channel.rank() as usize, channel.count() as usize);
    let sub = channel
        .split((r % 2) as i32, -(r as i32), 0)
        .unwrap()
        .expect("a color gives a channel");
    let members: Vec<usize> = (0..n).filter(|j| j % 2 == r % 2).collect();
    assert_eq!(sub.count() as usize, members.len());
    // Keys reverse the order: the highest world rank is rank 0.
    let position = members.iter().rev().position(|&j| j == r).unwrap();
    assert_eq!(sub.rank() as usize, position);
    // Sum over the sub-group only.
    let ty = Ty::Sint32;
    let o = op(CollectiveKind::AllReduce, Reduction::Sum, ty);
    let expected = vec![members.iter().map(|&j| j as f64).sum::<f64>(); 3];
    check(device, &sub, ty, o, 0, 3, &[r as f64; 3], 3, &expected);
    // Rank 0 opts out.
    let color = if r == 0 { NO_COLOR } else { 7 };
    let other = channel.split(color, 0, 0).unwrap();
    assert_eq!(other.is_none(), r == 0);
    if let Some(other) = other {
        assert_eq!(other.count() as usize, n - 1);
    }
}

/// Ranks disagreeing on the element count all get INVALID_ARGUMENT, and
/// the channel stays usable.
fn check_mismatch(device: &LocalDevice) {
    let channel = device
        .create_channel(&ChannelParams::from_environment())
        .unwrap();
    let r = channel.rank() as usize;
    if channel.count() < 2 {
        return;
    }
    let ty = Ty::Float32;
    let count = if r == 0 { 4 } else { 8 };
    let send = host_buffer(&encode(ty, &[1.0; 8]));
    let recv = host_buffer(&[0u8; 32]);
    let collective = Collective {
        op: op(CollectiveKind::AllReduce, Reduction::Sum, ty),
        param: 0,
        element_count: count,
    };
    let error = execute(device, &channel, collective, &send, &recv).unwrap_err();
    assert_eq!(error.code(), StatusCode::InvalidArgument, "{error}");
    assert!(error.to_string().contains("disagree"), "{error}");
    let o = op(CollectiveKind::AllReduce, Reduction::Sum, ty);
    let n = channel.count() as f64;
    check(device, &channel, ty, o, 0, 2, &[1.0, 2.0], 2, &[n, 2.0 * n]);
}

fn devices() -> Vec<LocalDevice> {
    vec![
        LocalDevice::new(),
        LocalDevice::with_workers("local-task", 2),
    ]
}

/// What each rank runs.
fn child() {
    // A failed check ends the whole job (with its message) rather than
    // leaving the other ranks in a collective this rank never joins.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        iree_hal::channel::mpi::abort_job(1);
    }));
    if std::env::var(CHILD).as_deref() == Ok("fail") {
        let channel = LocalDevice::new()
            .create_channel(&ChannelParams::from_environment())
            .unwrap();
        if channel.rank() == 1 {
            eprintln!("rank 1: failing on purpose");
            iree_hal::channel::mpi::abort_job(3);
            unreachable!("MPI_Abort returned");
        }
        // The others wait in a collective rank 1 never joins.
        let device = LocalDevice::new();
        let ty = Ty::Float32;
        let b = host_buffer(&[0u8; 4]);
        let collective = Collective {
            op: op(CollectiveKind::AllReduce, Reduction::Sum, ty),
            param: 0,
            element_count: 1,
        };
        let _ = execute(&device, &channel, collective, &b, &b.clone());
        return;
    }
    for device in devices() {
        let checks = check_all(&device);
        check_split(&device);
        check_mismatch(&device);
        eprintln!("{}: {checks} collectives checked", device.id());
    }
}

/// Runs this test binary under `mpirun -n ranks`; returns its exit status
/// and output, or `None` when it ran past `limit`.
fn mpirun(ranks: usize, mode: &str, limit: Duration) -> Option<(bool, String)> {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new("mpirun")
        .args(["--oversubscribe", "--allow-run-as-root", "-n"])
        .arg(ranks.to_string())
        .arg(exe)
        .args([
            "--exact",
            "collectives_over_mpi",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, mode)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            let output = child.wait_with_output().unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            return Some((output.status.success(), text));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn collectives_over_mpi() -> TestResult {
    if std::env::var_os(CHILD).is_some() {
        child();
        return Ok(());
    }
    require_mpirun()?;
    for ranks in [2, 4] {
        let (ok, output) = mpirun(ranks, "1", Duration::from_secs(300))
            .unwrap_or_else(|| panic!("{ranks} ranks: timed out"));
        assert!(ok, "{ranks} ranks failed:\n{output}");
        assert_eq!(
            output.matches("collectives checked").count(),
            2 * ranks,
            "{output}"
        );
    }
    // A failing rank ends the job, with its message, instead of leaving
    // the others waiting.
    let (ok, output) =
        mpirun(2, "fail", Duration::from_secs(60)).expect("a failing rank must end the whole job");
    assert!(!ok, "{output}");
    assert!(output.contains("failing on purpose"), "{output}");
    Ok(())
}

/// Outside a launcher: rank 0 of 1, every collective a local copy.
fn one_rank_without_a_launcher() -> TestResult {
    if std::env::var_os(CHILD).is_some() {
        return Ok(());
    }
    let launched = [
        "OMPI_COMM_WORLD_SIZE",
        "PMIX_RANK",
        "PMI_RANK",
        "PMI_SIZE",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some());
    if launched {
        return Ok(());
    }
    for device in devices() {
        let channel = device
            .create_channel(&ChannelParams::from_environment())
            .unwrap();
        assert_eq!((channel.rank(), channel.count()), (0, 1));
        assert_eq!(channel.provider(), "local");
        check_all(&device);
        check_split(&device);
        // Asking for more ranks than the process has is UNAVAILABLE.
        let error = device
            .create_channel(&ChannelParams {
                rank: 0,
                count: 2,
                ..Default::default()
            })
            .err()
            .unwrap();
        assert_eq!(error.code(), StatusCode::Unavailable);
        // A collective too large for its buffers fails cleanly.
        let b = host_buffer(&[0u8; 4]);
        let error = run_collective(
            &*channel,
            &Collective {
                op: op(CollectiveKind::AllReduce, Reduction::Sum, Ty::Float32),
                param: 0,
                element_count: 2,
            },
            Some(iree_hal::BufferBinding {
                buffer: &b,
                offset: 0,
                length: 4,
            }),
            Some(iree_hal::BufferBinding {
                buffer: &b,
                offset: 0,
                length: 4,
            }),
        )
        .unwrap_err();
        assert_eq!(error.code(), StatusCode::OutOfRange);
    }
    Ok(())
}

fn main() -> ExitCode {
    iree_test_support::run(vec![
        iree_test_support::test("collectives_over_mpi", collectives_over_mpi),
        iree_test_support::test("one_rank_without_a_launcher", one_rank_without_a_launcher),
    ])
}
