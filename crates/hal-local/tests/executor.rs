//! The local command-buffer executor: transfers against a plain byte model
//! at every pattern width, offset and length (and failures that leave the
//! buffer untouched); random programs against the sequential reference
//! executor; barriers that concurrent regions never cross; dispatches of one
//! region that really run at once; and queue submissions whose semaphore
//! values are each signaled once, in order.
//!
//! The kernels are Rust ([`Probe`]), loaded through a test loader, so the
//! test can watch every workgroup.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use iree_base::StatusCode;
use iree_hal::buffer::WHOLE_BUFFER;
use iree_hal::Device;
use iree_hal::{
    BindingRef, Buffer, BufferParams, BufferUsage, CommandBuffer, DispatchBinding, Executable,
    Fence, MemoryType, Semaphore,
};
use iree_hal_local::dispatch::TRANSFER_TILE;
use iree_hal_local::{
    DispatchAttrsV0, DispatchStateV0, ExecutableLoader, ExportInfo, LocalDevice,
    WorkgroupExecutable, WorkgroupStateV0,
};

// ---------------------------------------------------------------------------
// Probe: Rust kernels that record what they see.
// ---------------------------------------------------------------------------

/// Export ordinals of [`Probe`].
const PHASE: usize = 0;
const WAIT_FOR_FLAG: usize = 1;
const SET_FLAG: usize = 2;
const INCREMENT: usize = 3;
/// Fails (result 3) at the workgroup whose id is its constants [x, y, z].
const FAIL_AT: usize = 4;

/// Bytes each workgroup of `INCREMENT` handles.
const INCREMENT_CHUNK: usize = 37;

#[derive(Default)]
struct ProbeState {
    /// Workgroups finished per region (`PHASE`).
    done: Vec<AtomicU64>,
    /// Workgroups that started before the previous region had finished.
    violations: AtomicU64,
    flags: Vec<AtomicBool>,
}

struct Probe {
    exports: Vec<ExportInfo>,
    state: Arc<ProbeState>,
}

fn export(name: &str, constants: u8, bindings: u8) -> ExportInfo {
    ExportInfo::new(
        name,
        DispatchAttrsV0 {
            constant_count: constants,
            binding_count: bindings,
            workgroup_size_x: 1,
            workgroup_size_y: 1,
            workgroup_size_z: 1,
            ..Default::default()
        },
    )
}

impl WorkgroupExecutable for Probe {
    fn exports(&self) -> &[ExportInfo] {
        &self.exports
    }

    unsafe fn run_workgroup(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        workgroup: &WorkgroupStateV0,
    ) -> iree_base::Result<i32> {
        // SAFETY: the executor passes `constant_count` constants.
        let constant = |i: usize| unsafe { *dispatch.constants.add(i) } as usize;
        let state = &self.state;
        match ordinal {
            // constants: [region, workgroups of the previous region]
            PHASE => {
                let region = constant(0);
                if region > 0 && state.done[region - 1].load(Ordering::SeqCst) != constant(1) as u64
                {
                    state.violations.fetch_add(1, Ordering::SeqCst);
                }
                // Stay a while, so a region started early would overlap it.
                let until = Instant::now() + Duration::from_micros(20);
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
                state.done[region].fetch_add(1, Ordering::SeqCst);
                Ok(0)
            }
            // constants: [flag]; fails after 20 s without the flag.
            WAIT_FOR_FLAG => {
                let deadline = Instant::now() + Duration::from_secs(20);
                while !state.flags[constant(0)].load(Ordering::SeqCst) {
                    if Instant::now() > deadline {
                        return Ok(1);
                    }
                    std::hint::spin_loop();
                }
                Ok(0)
            }
            SET_FLAG => {
                state.flags[constant(0)].store(true, Ordering::SeqCst);
                Ok(0)
            }
            // binding 0: bytes; workgroup x adds 1 to its chunk of them.
            INCREMENT => {
                // SAFETY: one binding, as declared; the executor resolved
                // its pointer and length inside a live allocation.
                let (ptr, len) = unsafe {
                    (
                        *dispatch.binding_ptrs.cast::<*mut u8>(),
                        *dispatch.binding_lengths,
                    )
                };
                let start = workgroup.workgroup_id_x as usize * INCREMENT_CHUNK;
                for i in start..(start + INCREMENT_CHUNK).min(len) {
                    // SAFETY: `i < len`; workgroups touch disjoint chunks.
                    unsafe { *ptr.add(i) = (*ptr.add(i)).wrapping_add(1) };
                }
                Ok(0)
            }
            FAIL_AT => {
                let id = [
                    workgroup.workgroup_id_x as usize,
                    workgroup.workgroup_id_y as usize,
                    usize::from(workgroup.workgroup_id_z),
                ];
                Ok(if id == [constant(0), constant(1), constant(2)] {
                    3
                } else {
                    0
                })
            }
            _ => Ok(2),
        }
    }
}

struct ProbeLoader(Arc<ProbeState>);

impl ExecutableLoader for ProbeLoader {
    fn name(&self) -> &str {
        "probe"
    }
    fn supports(&self, format: &str) -> bool {
        format == "probe"
    }
    fn formats(&self) -> Vec<String> {
        vec!["probe".into()]
    }
    fn load(
        &self,
        _format: &str,
        _data: &[u8],
        _constants: &[u32],
    ) -> iree_base::Result<Arc<dyn WorkgroupExecutable>> {
        Ok(Arc::new(Probe {
            exports: vec![
                export("phase", 2, 0),
                export("wait_for_flag", 1, 0),
                export("set_flag", 1, 0),
                export("increment", 0, 1),
                export("fail_at", 3, 0),
            ],
            state: self.0.clone(),
        }))
    }
}

struct Setup {
    device: LocalDevice,
    probe: Arc<dyn Executable>,
    state: Arc<ProbeState>,
}

/// A device with `workers` workers (1: `local-sync`) and the probe loaded;
/// room for `regions` phase counters and `flags` flags.
fn setup(workers: usize, regions: usize, flags: usize) -> Setup {
    let state = Arc::new(ProbeState {
        done: (0..regions).map(|_| AtomicU64::new(0)).collect(),
        violations: AtomicU64::new(0),
        flags: (0..flags).map(|_| AtomicBool::new(false)).collect(),
    });
    let id = if workers > 1 {
        "local-task"
    } else {
        "local-sync"
    };
    let device = LocalDevice::with_loaders(id, workers, vec![Arc::new(ProbeLoader(state.clone()))]);
    let probe = device.create_executable("probe", &[], &[]).unwrap();
    Setup {
        device,
        probe,
        state,
    }
}

fn buffer(device: &LocalDevice, len: usize) -> Buffer {
    device
        .allocator()
        .allocate_buffer(
            BufferParams {
                memory_type: MemoryType::DEVICE_LOCAL,
                usage: BufferUsage::DEFAULT,
                ..Default::default()
            },
            len as u64,
        )
        .unwrap()
}

fn contents(buffer: &Buffer) -> Vec<u8> {
    let mut out = vec![0; buffer.byte_length() as usize];
    buffer.read(0, &mut out).unwrap();
    out
}

fn range(buffer: &Buffer, offset: usize, length: usize) -> BindingRef {
    BindingRef::Direct {
        buffer: buffer.clone(),
        offset: offset as u64,
        length: length as u64,
    }
}

/// Submits `cb` (with `table`) and waits; returns the execution's result.
fn run(
    device: &LocalDevice,
    cb: &CommandBuffer,
    table: &[DispatchBinding],
) -> iree_base::Result<()> {
    let signal = Fence::with_new_semaphore();
    let submitted = device.queue_execute(&Fence::new(), &signal, Some(cb), table);
    let waited = signal.wait(None);
    submitted.and(waited)
}

fn finalized(record: impl FnOnce(&mut CommandBuffer)) -> CommandBuffer {
    let mut cb = CommandBuffer::new(4);
    record(&mut cb);
    cb.finalize().unwrap();
    cb
}

/// A deterministic byte pattern (xorshift), distinct per `seed`.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Prepared command buffers.
// ---------------------------------------------------------------------------

/// A command buffer runs from what its first execution prepared: direct
/// bindings (here into a subspan, at an offset) resolved once, binding
/// table slots resolved at each execution against that execution's table,
/// on `local-sync` and `local-task` alike.
#[test]
fn prepared_command_buffers_resolve_slots_at_each_execution() {
    for workers in [1, 2] {
        let Setup { device, probe, .. } = setup(workers, 0, 0);
        let direct = buffer(&device, 200);
        let subspan = direct.subspan(40, 100).unwrap();
        let tables: Vec<Buffer> = (0..3).map(|_| buffer(&device, 64)).collect();
        let cb = finalized(|cb| {
            for binding in [
                range(&subspan, 10, INCREMENT_CHUNK),
                BindingRef::Slot {
                    slot: 0,
                    offset: 5,
                    length: INCREMENT_CHUNK as u64,
                },
            ] {
                cb.dispatch(probe.clone(), INCREMENT, [1, 1, 1], &[], vec![binding])
                    .unwrap();
                cb.barrier().unwrap();
            }
        });
        for (i, table) in tables.iter().enumerate() {
            let entry = DispatchBinding {
                buffer: table.clone(),
                offset: 8,
                length: 56,
            };
            run(&device, &cb, &[entry]).unwrap();
            let expected: Vec<u8> = (0..200)
                .map(|b| {
                    if (50..87).contains(&b) {
                        i as u8 + 1
                    } else {
                        0
                    }
                })
                .collect();
            assert_eq!(contents(&direct), expected, "{workers} workers, run {i}");
        }
        for table in &tables {
            let expected: Vec<u8> = (0..64).map(|b| (13..50).contains(&b) as u8).collect();
            assert_eq!(contents(table), expected, "{workers} workers");
        }
        // A missing slot fails at submission, before anything runs.
        let err = device
            .queue_execute(&Fence::new(), &Fence::with_new_semaphore(), Some(&cb), &[])
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument, "{err}");
        assert_eq!(contents(&direct)[50], 3);
    }
}

// ---------------------------------------------------------------------------
// Transfers against a plain byte model.
// ---------------------------------------------------------------------------

/// Lengths around every boundary the executor has: empty, tiny, one 64-byte
/// block, and one, two and several transfer tiles (with ragged ends).
fn lengths(width: usize) -> Vec<usize> {
    let tile = TRANSFER_TILE;
    [
        0,
        1,
        3,
        16,
        63,
        64,
        65,
        1000,
        tile - 1,
        tile,
        tile + 1,
        2 * tile + 5,
        3 * tile + 64,
    ]
    .iter()
    .map(|&n| n / width * width)
    .collect()
}

const SIZE: usize = 3 * TRANSFER_TILE + 256;

#[test]
fn fills_match_the_model_at_every_width_offset_and_length() {
    for workers in [1, 4] {
        let s = setup(workers, 0, 0);
        let target = buffer(&s.device, SIZE);
        for pattern in [
            &[0xA5u8][..],
            &[0x01, 0x80],
            &[0x00, 0x00, 0x80, 0x3F],
            &[0; 4],
        ] {
            let width = pattern.len();
            for offset in (0..8).map(|k| k * width) {
                for length in lengths(width) {
                    let before = noise(SIZE, (offset * 31 + length) as u64);
                    target.write(0, &before).unwrap();
                    let cb =
                        finalized(|cb| cb.fill(range(&target, offset, length), pattern).unwrap());
                    run(&s.device, &cb, &[]).unwrap();
                    let mut model = before.clone();
                    for (i, byte) in model[offset..offset + length].iter_mut().enumerate() {
                        *byte = pattern[i % width];
                    }
                    assert!(
                        contents(&target) == model,
                        "fill {pattern:?} at {offset}+{length} on {workers} workers"
                    );
                }
            }
        }
    }
}

#[test]
fn copies_and_updates_match_the_model_at_unaligned_offsets() {
    for workers in [1, 4] {
        let s = setup(workers, 0, 0);
        let (source, target) = (buffer(&s.device, SIZE), buffer(&s.device, SIZE));
        let data = noise(SIZE, 7);
        source.write(0, &data).unwrap();
        for (from, to) in [(0, 0), (1, 3), (7, 0), (64, 65), (5, 4093)] {
            for length in lengths(1).into_iter().filter(|&n| n + from.max(to) <= SIZE) {
                let before = noise(SIZE, length as u64);
                target.write(0, &before).unwrap();
                let cb = finalized(|cb| {
                    cb.copy(range(&source, from, length), range(&target, to, length))
                        .unwrap()
                });
                run(&s.device, &cb, &[]).unwrap();
                let mut model = before.clone();
                model[to..to + length].copy_from_slice(&data[from..from + length]);
                assert!(contents(&target) == model, "copy {from}->{to} +{length}");

                target.write(0, &before).unwrap();
                let cb = finalized(|cb| {
                    cb.update(&data[from..from + length], range(&target, to, length))
                        .unwrap()
                });
                run(&s.device, &cb, &[]).unwrap();
                assert!(contents(&target) == model, "update at {to} +{length}");
            }
        }
    }
}

#[test]
fn copies_within_one_allocation_behave_like_memmove() {
    for workers in [1, 4] {
        let s = setup(workers, 0, 0);
        let b = buffer(&s.device, SIZE);
        for (from, to, length) in [
            (0, 1, 2 * TRANSFER_TILE),
            (1, 0, 2 * TRANSFER_TILE),
            (100, 100, 1000),
            (0, TRANSFER_TILE, TRANSFER_TILE),
        ] {
            let before = noise(SIZE, (from + to) as u64);
            b.write(0, &before).unwrap();
            let cb = finalized(|cb| {
                cb.copy(range(&b, from, length), range(&b, to, length))
                    .unwrap()
            });
            run(&s.device, &cb, &[]).unwrap();
            let mut model = before.clone();
            model.copy_within(from..from + length, to);
            assert!(contents(&b) == model, "{from}->{to} +{length}");
            // The same through binding-table slots (whose overlap shows only
            // when executed), twice: the second run reuses the prepared
            // command buffer.
            let entry = |offset: usize| DispatchBinding {
                buffer: b.clone(),
                offset: offset as u64,
                length: length as u64,
            };
            let table = [entry(from), entry(to)];
            let slot = |slot: u32| BindingRef::Slot {
                slot,
                offset: 0,
                length: WHOLE_BUFFER,
            };
            let cb = finalized(|cb| cb.copy(slot(0), slot(1)).unwrap());
            for _ in 0..2 {
                b.write(0, &before).unwrap();
                run(&s.device, &cb, &table).unwrap();
                assert!(contents(&b) == model, "slots {from}->{to} +{length}");
            }
        }
    }
}

#[test]
fn copies_between_a_direct_range_and_a_table_slot() {
    // One side recorded with its buffer, the other through the binding
    // table: the lengths can be compared only when executed.
    for workers in [1, 4] {
        let s = setup(workers, 0, 0);
        let (a, b) = (buffer(&s.device, 4096), buffer(&s.device, 4096));
        let table = |length: u64| {
            [DispatchBinding {
                buffer: b.clone(),
                offset: 100,
                length,
            }]
        };
        let slot = BindingRef::Slot {
            slot: 0,
            offset: 0,
            length: WHOLE_BUFFER,
        };
        let to_slot = finalized(|cb| cb.copy(range(&a, 8, 64), slot.clone()).unwrap());
        let from_slot = finalized(|cb| cb.copy(slot.clone(), range(&a, 200, 64)).unwrap());
        for _ in 0..2 {
            let (before_a, before_b) = (noise(4096, 5), noise(4096, 6));
            a.write(0, &before_a).unwrap();
            b.write(0, &before_b).unwrap();
            run(&s.device, &to_slot, &table(64)).unwrap();
            let mut model_b = before_b.clone();
            model_b[100..164].copy_from_slice(&before_a[8..72]);
            assert!(contents(&b) == model_b, "{workers} workers: into the slot");
            run(&s.device, &from_slot, &table(64)).unwrap();
            let mut model_a = before_a.clone();
            model_a[200..264].copy_from_slice(&model_b[100..164]);
            assert!(
                contents(&a) == model_a,
                "{workers} workers: out of the slot"
            );
            // A slot of another length fails as a direct copy would.
            let error = run(&s.device, &to_slot, &table(32)).unwrap_err();
            assert_eq!(error.code(), StatusCode::InvalidArgument, "{error}");
            assert!(
                contents(&b) == model_b,
                "{workers} workers: a failed copy wrote"
            );
        }
    }
}

#[test]
fn a_transfer_failing_at_execution_leaves_its_whole_region_unrun() {
    // A fill through a table slot whose entry makes it misaligned can fail
    // only when executed. Beside a dispatch in its region it still fails
    // before the dispatch runs: on one worker, which takes the region's
    // commands one by one, the transfers are checked first.
    for workers in [1, 4] {
        let s = setup(workers, 0, 0);
        let size = 4096;
        let b = buffer(&s.device, size);
        let before = noise(size, 11);
        b.write(0, &before).unwrap();
        let table = [DispatchBinding {
            buffer: b.clone(),
            offset: 2,
            length: 64,
        }];
        let cb = finalized(|cb| {
            cb.dispatch(
                s.probe.clone(),
                INCREMENT,
                [4, 1, 1],
                &[],
                vec![range(&b, 0, size)],
            )
            .unwrap();
            cb.fill(
                BindingRef::Slot {
                    slot: 0,
                    offset: 0,
                    length: 8,
                },
                &[1, 2, 3, 4],
            )
            .unwrap();
        });
        let error = run(&s.device, &cb, &table).unwrap_err();
        assert_eq!(error.code(), StatusCode::InvalidArgument, "{error}");
        assert!(
            contents(&b) == before,
            "{workers} workers: the dispatch ran"
        );
    }
}

#[test]
fn bad_transfers_fail_clearly_and_leave_the_buffer_untouched() {
    for workers in [1, 4] {
        let s = setup(workers, 0, 0);
        let target = buffer(&s.device, 4096);
        let before = noise(4096, 3);
        target.write(0, &before).unwrap();
        let slot = |offset: u64, length: u64| BindingRef::Slot {
            slot: 0,
            offset,
            length,
        };
        // The table's range is 100 bytes; the commands reach past it.
        let table = [DispatchBinding {
            buffer: target.clone(),
            offset: 8,
            length: 100,
        }];
        // Fills whose offset or length is not a multiple of the pattern
        // fail when recorded, as upstream's validation has them.
        for (offset, length) in [(2, 8), (0, 6)] {
            let err = CommandBuffer::new(0)
                .fill(range(&target, offset, length), &[1, 2, 3, 4])
                .unwrap_err();
            assert_eq!(err.code(), StatusCode::InvalidArgument, "{err}");
        }
        let cases: Vec<(&str, CommandBuffer, StatusCode)> = vec![
            (
                "fill past the slot",
                finalized(|cb| cb.fill(slot(96, 8), &[1]).unwrap()),
                StatusCode::OutOfRange,
            ),
            (
                "copy past the slot",
                finalized(|cb| cb.copy(range(&target, 0, 16), slot(90, 16)).unwrap()),
                StatusCode::OutOfRange,
            ),
            (
                "copy between ranges of different lengths",
                finalized(|cb| {
                    cb.copy(range(&target, 0, 16), range(&target, 64, 8))
                        .unwrap()
                }),
                StatusCode::InvalidArgument,
            ),
            (
                "update past the slot",
                finalized(|cb| cb.update(&[9; 32], slot(80, WHOLE_BUFFER)).unwrap()),
                StatusCode::OutOfRange,
            ),
            (
                // The valid fill shares the region with the bad copy: nothing
                // of the region runs.
                "a valid fill beside a bad copy",
                finalized(|cb| {
                    cb.fill(range(&target, 0, 64), &[0xFF]).unwrap();
                    cb.copy(range(&target, 128, 16), slot(100, 16)).unwrap();
                }),
                StatusCode::OutOfRange,
            ),
        ];
        for (what, cb, code) in cases {
            let error = run(&s.device, &cb, &table).unwrap_err();
            assert_eq!(error.code(), code, "{what}: {error}");
            assert!(contents(&target) == before, "{what} changed the buffer");
        }
        // Recording checks what it can see.
        let mut cb = CommandBuffer::new(1);
        assert_eq!(
            cb.fill(range(&target, 4090, 8), &[0]).unwrap_err().code(),
            StatusCode::OutOfRange
        );
        assert_eq!(
            cb.fill(range(&target, 0, 8), &[0, 0, 0])
                .unwrap_err()
                .code(),
            StatusCode::InvalidArgument
        );
    }
}

// ---------------------------------------------------------------------------
// Random programs against the sequential reference executor.
// ---------------------------------------------------------------------------

/// One command of a random program, on buffer indices.
#[derive(Clone, Debug)]
enum Op {
    Fill(usize, usize, usize, Vec<u8>),
    Copy(usize, usize, usize, usize, usize),
    Update(usize, usize, Vec<u8>),
    /// Increment bytes of (buffer, offset, length).
    Increment(usize, usize, usize),
    Barrier,
}

const PROGRAM_BUFFERS: usize = 3;
const PROGRAM_BUFFER_SIZE: usize = 2 * TRANSFER_TILE + 777;

/// A random program. Kernels in one region never overlap each other or a
/// fill (that would be a race in any executor, upstream's included: a
/// region's commands may run in any order); copies and updates may overlap
/// anything, fills may overlap transfers, and the executor must then keep
/// program order.
fn random_program(seed: u64) -> Vec<Op> {
    let bytes = noise(4096, seed);
    let mut next = bytes.iter().map(|&b| b as usize).cycle();
    let mut pick = |n: usize| (next.next().unwrap() * 257 + next.next().unwrap()) % n;
    let mut ops = Vec::new();
    let mut kernels_in_region: Vec<(usize, usize, usize)> = Vec::new();
    let mut fills_in_region: Vec<(usize, usize, usize)> = Vec::new();
    let overlaps = |ranges: &[(usize, usize, usize)], b: usize, offset: usize, length: usize| {
        ranges
            .iter()
            .any(|&(rb, ro, rl)| rb == b && ro < offset + length && offset < ro + rl)
    };
    for _ in 0..24 {
        let b = pick(PROGRAM_BUFFERS);
        let offset = pick(PROGRAM_BUFFER_SIZE);
        let length = pick(PROGRAM_BUFFER_SIZE - offset + 1);
        match pick(10) {
            0 | 1 => {
                let width = [1, 2, 4][pick(3)];
                let offset = offset / width * width;
                let length = length / width * width;
                let pattern = noise(width, pick(1000) as u64);
                if overlaps(&kernels_in_region, b, offset, length) {
                    ops.push(Op::Barrier);
                    kernels_in_region.clear();
                    fills_in_region.clear();
                }
                fills_in_region.push((b, offset, length));
                ops.push(Op::Fill(b, offset, length, pattern));
            }
            2 | 3 => {
                let target = pick(PROGRAM_BUFFERS);
                let to = pick(PROGRAM_BUFFER_SIZE - length + 1);
                ops.push(Op::Copy(b, offset, target, to, length));
            }
            4 => ops.push(Op::Update(
                b,
                offset,
                noise(length.min(5000), pick(999) as u64),
            )),
            5..=8 => {
                if overlaps(&kernels_in_region, b, offset, length)
                    || overlaps(&fills_in_region, b, offset, length)
                {
                    ops.push(Op::Barrier);
                    kernels_in_region.clear();
                    fills_in_region.clear();
                }
                kernels_in_region.push((b, offset, length));
                ops.push(Op::Increment(b, offset, length));
            }
            _ => {
                ops.push(Op::Barrier);
                kernels_in_region.clear();
                fills_in_region.clear();
            }
        }
    }
    ops
}

fn record(program: &[Op], buffers: &[Buffer], probe: &Arc<dyn Executable>) -> CommandBuffer {
    finalized(|cb| {
        for op in program {
            match op {
                Op::Fill(b, offset, length, pattern) => cb
                    .fill(range(&buffers[*b], *offset, *length), pattern)
                    .unwrap(),
                Op::Copy(b, from, target, to, length) => cb
                    .copy(
                        range(&buffers[*b], *from, *length),
                        range(&buffers[*target], *to, *length),
                    )
                    .unwrap(),
                Op::Update(b, offset, data) => cb
                    .update(data, range(&buffers[*b], *offset, data.len()))
                    .unwrap(),
                Op::Increment(b, offset, length) => cb
                    .dispatch(
                        probe.clone(),
                        INCREMENT,
                        [length.div_ceil(INCREMENT_CHUNK) as u32, 1, 1],
                        &[],
                        vec![range(&buffers[*b], *offset, *length)],
                    )
                    .unwrap(),
                Op::Barrier => cb.barrier().unwrap(),
            }
        }
    })
}

#[test]
fn random_programs_match_the_sequential_reference() {
    let s = setup(4, 0, 0);
    for seed in 0..60 {
        let program = random_program(seed);
        let make = || -> Vec<Buffer> {
            (0..PROGRAM_BUFFERS)
                .map(|i| {
                    let b = buffer(&s.device, PROGRAM_BUFFER_SIZE);
                    b.write(0, &noise(PROGRAM_BUFFER_SIZE, seed * 10 + i as u64))
                        .unwrap();
                    b
                })
                .collect()
        };
        let (ours, reference) = (make(), make());
        run(&s.device, &record(&program, &ours, &s.probe), &[]).unwrap();
        record(&program, &reference, &s.probe)
            .execute_inline(&[])
            .unwrap();
        for (i, (a, b)) in ours.iter().zip(&reference).enumerate() {
            assert!(
                contents(a) == contents(b),
                "seed {seed}: buffer {i} differs from the reference; program {program:?}"
            );
        }
    }
}

#[test]
fn a_failing_workgroup_is_named_by_its_id() {
    // Workgroups run in batches (ids counted up, not divided out per
    // workgroup); the failure still names the right one.
    for workers in [1, 4] {
        let s = setup(workers, 0, 0);
        for at in [[0, 0, 0], [4, 0, 0], [0, 2, 1], [4, 2, 2], [2, 1, 2]] {
            let cb = finalized(|cb| {
                cb.dispatch(s.probe.clone(), FAIL_AT, [5, 3, 3], &at, vec![])
                    .unwrap();
            });
            let error = run(&s.device, &cb, &[]).unwrap_err();
            let expected = format!(
                "workgroup [{}, {}, {}] failed with result 3",
                at[0], at[1], at[2]
            );
            assert!(
                error.to_string().contains(&expected),
                "{workers} workers, {at:?}: {error}"
            );
        }
    }
}

#[test]
fn a_fill_inside_a_dispatch_binding_runs_with_the_dispatch() {
    // The compiler binds whole slabs of a transient allocation and omits
    // the barrier between a dispatch and a fill of bytes its kernel does not
    // touch (a model zeroing a padding buffer): the two share a region and
    // the fill's tiles run beside the workgroups, through atomic stores.
    let s = setup(4, 0, 0);
    let size = 3 * TRANSFER_TILE + 100;
    let workgroups = 2000;
    let touched = workgroups * INCREMENT_CHUNK;
    let fill_at = touched.next_multiple_of(4) + 4;
    for (pattern, offset) in [
        (vec![0u8], fill_at),
        (vec![1, 2, 3, 4], fill_at),
        (vec![7, 9], fill_at + 2),
    ] {
        let original = noise(size, 5);
        let b = buffer(&s.device, size);
        b.write(0, &original).unwrap();
        let length = (size - offset) / pattern.len() * pattern.len();
        let cb = finalized(|cb| {
            cb.dispatch(
                s.probe.clone(),
                INCREMENT,
                [workgroups as u32, 1, 1],
                &[],
                vec![range(&b, 0, size)],
            )
            .unwrap();
            cb.fill(range(&b, offset, length), &pattern).unwrap();
        });
        run(&s.device, &cb, &[]).unwrap();
        let mut expected = original.clone();
        for byte in &mut expected[..touched] {
            *byte = byte.wrapping_add(1);
        }
        for (i, byte) in expected[offset..offset + length].iter_mut().enumerate() {
            *byte = pattern[i % pattern.len()];
        }
        assert!(contents(&b) == expected, "pattern {pattern:?} at {offset}");
    }
}

// ---------------------------------------------------------------------------
// Barriers, concurrency and semaphores.
// ---------------------------------------------------------------------------

/// Records `regions` (workgroup counts of each region's `PHASE` dispatches),
/// numbered from `first`, with a barrier after each; `before` is the
/// workgroup count of region `first - 1`, which must have finished before
/// the first region starts. Returns the workgroups per region.
fn record_phases(
    cb: &mut CommandBuffer,
    probe: &Arc<dyn Executable>,
    regions: &[Vec<u32>],
    first: usize,
    before: u64,
) -> Vec<u64> {
    let mut totals: Vec<u64> = Vec::new();
    for (r, dispatches) in regions.iter().enumerate() {
        let previous = totals.last().copied().unwrap_or(before);
        for &count in dispatches {
            cb.dispatch(
                probe.clone(),
                PHASE,
                [count, 1, 1],
                &[(first + r) as u32, previous as u32],
                vec![],
            )
            .unwrap();
        }
        cb.barrier().unwrap();
        totals.push(dispatches.iter().map(|&c| u64::from(c)).sum());
    }
    totals
}

fn random_regions(seed: u64, count: usize) -> Vec<Vec<u32>> {
    let bytes = noise(count * 8, seed);
    bytes
        .chunks(8)
        .map(|c| {
            (0..1 + c[0] as usize % 6)
                .map(|i| 1 + u32::from(c[1 + i]) % 40)
                .collect()
        })
        .collect()
}

#[test]
fn concurrent_regions_never_cross_a_barrier() {
    const ROUNDS: usize = 40;
    const REGIONS: usize = 12;
    let s = setup(4, ROUNDS * REGIONS, 0);
    let mut before = 0;
    for round in 0..ROUNDS {
        let regions = random_regions(round as u64, REGIONS);
        let mut totals = Vec::new();
        let cb =
            finalized(|cb| totals = record_phases(cb, &s.probe, &regions, round * REGIONS, before));
        before = *totals.last().unwrap();
        run(&s.device, &cb, &[]).unwrap();
        for (r, &total) in totals.iter().enumerate() {
            assert_eq!(
                s.state.done[round * REGIONS + r].load(Ordering::SeqCst),
                total,
                "round {round} region {r}: every workgroup runs exactly once"
            );
        }
    }
    assert_eq!(s.state.violations.load(Ordering::SeqCst), 0);
}

#[test]
fn dispatches_of_one_region_run_concurrently() {
    let s = setup(2, 0, 1);
    // The first dispatch spins until the second has run: it can only finish
    // when both run at once.
    let cb = finalized(|cb| {
        cb.dispatch(s.probe.clone(), WAIT_FOR_FLAG, [1, 1, 1], &[0], vec![])
            .unwrap();
        cb.dispatch(s.probe.clone(), SET_FLAG, [1, 1, 1], &[0], vec![])
            .unwrap();
    });
    run(&s.device, &cb, &[]).unwrap();
    assert!(s.state.flags[0].load(Ordering::SeqCst));
}

#[test]
fn each_semaphore_value_is_signaled_once_in_order() {
    const SUBMISSIONS: usize = 64;
    const REGIONS: usize = 4;
    let s = setup(4, SUBMISSIONS * REGIONS, 0);
    let timeline = Semaphore::new(0);
    let signaled = Arc::new(
        (0..=SUBMISSIONS)
            .map(|_| AtomicU64::new(0))
            .collect::<Vec<_>>(),
    );
    for value in 1..=SUBMISSIONS as u64 {
        let signaled = signaled.clone();
        let observer = timeline.clone();
        timeline.notify_at(
            value,
            Box::new(move |result| {
                result.unwrap();
                // Seen once per value, and never past a later value.
                let now = observer.query().unwrap();
                signaled[value as usize].fetch_add(1, Ordering::SeqCst);
                assert!(now >= value);
            }),
        );
    }
    // Submission i waits for value i and signals i + 1, each running
    // REGIONS barrier-separated regions. Submitted from last to first, so
    // all but the first wait, and run later on the queue's executor thread.
    // Each submission's first region also checks that the previous
    // submission's last region has finished.
    let mut totals: Vec<Vec<u64>> = Vec::new();
    let buffers: Vec<CommandBuffer> = (0..SUBMISSIONS)
        .map(|i| {
            let before = totals.last().map_or(0, |t| *t.last().unwrap());
            finalized(|cb| {
                totals.push(record_phases(
                    cb,
                    &s.probe,
                    &random_regions(i as u64 + 1000, REGIONS),
                    i * REGIONS,
                    before,
                ))
            })
        })
        .collect();
    for i in (0..SUBMISSIONS).rev() {
        let mut wait = Fence::new();
        wait.insert(timeline.clone(), i as u64);
        let mut signal = Fence::new();
        signal.insert(timeline.clone(), i as u64 + 1);
        s.device
            .queue_execute(&wait, &signal, Some(&buffers[i]), &[])
            .unwrap();
    }
    timeline.wait(SUBMISSIONS as u64, None).unwrap();
    assert_eq!(timeline.query().unwrap(), SUBMISSIONS as u64);
    // Callbacks run on the signaling thread right after the waiters wake.
    let deadline = Instant::now() + Duration::from_secs(10);
    while signaled[1..].iter().any(|n| n.load(Ordering::SeqCst) == 0) && Instant::now() < deadline {
        std::thread::yield_now();
    }
    for value in 1..=SUBMISSIONS {
        assert_eq!(signaled[value].load(Ordering::SeqCst), 1, "value {value}");
    }
    for (i, totals) in totals.iter().enumerate() {
        for (r, &total) in totals.iter().enumerate() {
            assert_eq!(s.state.done[i * REGIONS + r].load(Ordering::SeqCst), total);
        }
    }
    assert_eq!(s.state.violations.load(Ordering::SeqCst), 0);
}

#[test]
fn profiling_records_each_dispatch_once_and_worker_slices_cover_its_workgroups() {
    use iree_hal::profiling::{EventKind, ProfilingMode, Track};
    for workers in [1, 3] {
        let s = setup(workers, 3, 0);
        // Region 0: two concurrent dispatches; region 1: one; then one of no
        // workgroups, which runs (and records) nothing.
        let regions = vec![vec![7, 5], vec![9]];
        let cb = finalized(|cb| {
            record_phases(cb, &s.probe, &regions, 0, 0);
            cb.dispatch(s.probe.clone(), PHASE, [0, 1, 1], &[2, 0], vec![])
                .unwrap();
        });
        // No capture runs until one is begun.
        assert!(s.device.profiling_end().is_err());
        s.device.profiling_begin(ProfilingMode::DISPATCH).unwrap();
        run(&s.device, &cb, &[]).unwrap();
        let capture = s.device.profiling_end().unwrap();
        let dispatches: Vec<_> = capture.dispatches().collect();
        let mut counts: Vec<u32> = dispatches
            .iter()
            .map(|e| match &e.kind {
                EventKind::Dispatch {
                    workgroup_count, ..
                } => workgroup_count[0],
                other => panic!("{other:?}"),
            })
            .collect();
        counts.sort();
        assert_eq!(counts, [5, 7, 9], "{workers} workers");
        for event in &dispatches {
            assert!(event.duration_ns > 0);
            assert!(event.start_ns + event.duration_ns <= capture.duration_ns);
            assert_eq!(&*event.name, "phase");
        }
        // The two dispatches of region 0 are on separate lanes.
        let mut lanes: Vec<_> = dispatches.iter().map(|e| e.track).collect();
        lanes.sort();
        lanes.dedup();
        assert_eq!(lanes.len(), 2);
        // No queue events were asked for.
        assert!(capture
            .events
            .iter()
            .all(|e| !matches!(e.kind, EventKind::Queue)));
        // Per-worker slices (multi-worker devices only) add up to every
        // workgroup that ran.
        let workgroups: u64 = capture
            .events
            .iter()
            .filter_map(|e| match (&e.kind, e.track) {
                (EventKind::WorkerSlice { workgroups, .. }, Track::Worker(w)) => {
                    assert!((w as usize) < workers);
                    Some(*workgroups)
                }
                _ => None,
            })
            .sum();
        assert_eq!(workgroups, if workers > 1 { 21 } else { 0 });
        assert_eq!(s.state.violations.load(Ordering::SeqCst), 0);
    }
}
