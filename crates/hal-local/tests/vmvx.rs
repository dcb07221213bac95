//! VMVX executables and the `vmvx` module: loading, export descriptions,
//! grids on several workers, kernel failures as statuses, wrappers a kernel
//! tries to keep, and microkernel argument validation (bad offsets, strides,
//! sizes and flags fail with a status, never a panic or a stray access).
//!
//! Kernels come from `tests/data/vmvx_*.mlir` (VM dialect, see
//! `tests/data/README.md`).

mod common;
use common::data;
use std::sync::Arc;

use iree_base::StatusCode;
use iree_hal::{Allocator, Buffer, BufferParams, BufferUsage, HeapAllocator, MemoryType};
use iree_hal_local::vmvx::{module, VmvxLoader, ENTRY_CCONV};
use iree_hal_local::{
    dispatch_grid, dispatch_grid_on_pool, dispatch_grid_parallel, BufferBinding, ExecutableLoader,
    WorkerPool, WorkgroupExecutable,
};
use iree_vm::buffer::SharedBytes;
use iree_vm::{Context, Instance, Ref, Value};

fn load(name: &str) -> Arc<dyn WorkgroupExecutable> {
    VmvxLoader::new()
        .load("vmvx-bytecode-fb", &data(name), &[])
        .unwrap()
}

fn device_buffer(len: u64) -> Buffer {
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DISPATCH_STORAGE,
        ..Default::default()
    };
    HeapAllocator::new().allocate_buffer(params, len).unwrap()
}

fn whole(buffer: &Buffer) -> BufferBinding<'_> {
    BufferBinding {
        buffer,
        offset: 0,
        length: buffer.byte_length(),
    }
}

fn i32s(buffer: &Buffer) -> Vec<i32> {
    let mut bytes = vec![0u8; buffer.byte_length() as usize];
    buffer.read(0, &mut bytes).unwrap();
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn write_i32s(buffer: &Buffer, values: &[i32]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    buffer.write(0, &bytes).unwrap();
}

#[test]
fn vmvx_module_has_upstream_exports_and_cconvs() {
    // runtime/src/iree/modules/vmvx/exports.inl at 3.13.
    let expected = [
        ("abs.2d.f32", "0rIIIrIIIII_v"),
        ("add.2d.f32", "0rIIIrIIIrIIIII_v"),
        ("add.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("and.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("ceil.2d.f32", "0rIIIrIIIII_v"),
        ("copy.2d.x16", "0rIIIrIIIII_v"),
        ("copy.2d.x32", "0rIIIrIIIII_v"),
        ("copy.2d.x64", "0rIIIrIIIII_v"),
        ("copy.2d.x8", "0rIIIrIIIII_v"),
        ("ctlz.2d.i32", "0rIIIrIIIII_v"),
        ("div.2d.f32", "0rIIIrIIIrIIIII_v"),
        ("divs.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("divu.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("exp.2d.f32", "0rIIIrIIIII_v"),
        ("fill.2d.x32", "0irIIII_v"),
        ("floor.2d.f32", "0rIIIrIIIII_v"),
        ("log.2d.f32", "0rIIIrIIIII_v"),
        ("mmt4d", "0rIIrIIrIIIIIiiii_v"),
        ("mul.2d.f32", "0rIIIrIIIrIIIII_v"),
        ("mul.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("neg.2d.f32", "0rIIIrIIIII_v"),
        ("or.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("pack", "0rIIIrIIIIIIIIIIi_v"),
        ("query_tile_sizes.2d", "0IIi_II"),
        ("rsqrt.2d.f32", "0rIIIrIIIII_v"),
        ("shl.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("shrs.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("shru.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("sub.2d.f32", "0rIIIrIIIrIIIII_v"),
        ("sub.2d.i32", "0rIIIrIIIrIIIII_v"),
        ("unpack", "0rIIIrIIIIIIIIIi_v"),
        ("xor.2d.i32", "0rIIIrIIIrIIIII_v"),
    ];
    let module = module::create();
    assert_eq!(module.name(), "vmvx");
    assert_eq!(module.version(), 0);
    let actual: Vec<(&str, &str)> = module
        .exports()
        .iter()
        .map(|e| (e.name.as_str(), e.cconv.as_str()))
        .collect();
    assert_eq!(actual, expected);
}

#[test]
fn loader_accepts_only_vmvx_bytecode() {
    let loader = VmvxLoader::new();
    assert_eq!(loader.name(), "vmvx");
    assert!(loader.supports("vmvx-bytecode-fb"));
    assert!(!loader.supports("embedded-elf-x86_64"));
    assert_eq!(loader.formats(), ["vmvx-bytecode-fb"]);
    assert!(iree_hal_local::default_loaders()
        .iter()
        .any(|l| l.supports("vmvx-bytecode-fb")));
    // Not a VMFB at all.
    assert!(loader.load("vmvx-bytecode-fb", b"garbage", &[]).is_err());
    assert!(loader.load("vmvx-bytecode-fb", &[], &[]).is_err());
}

#[test]
fn exports_are_described_by_reflection_attributes() {
    let exe = load("vmvx_kernels.vmfb");
    let names: Vec<&str> = exe.exports().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["scale", "fail", "oob", "keep", "local", "write_constants"]
    );
    let scale = &exe.exports()[0];
    assert_eq!((scale.binding_count(), scale.constant_count()), (2, 1));
    // Unset, as upstream reports it (dispatches run with 1 in its place).
    assert_eq!(scale.workgroup_size(), [0, 0, 0]);
    assert_eq!(scale.local_memory_size(), 0);
    let local = &exe.exports()[4];
    assert_eq!(local.local_memory_pages(), 1);
    assert_eq!(local.local_memory_size(), 4096);
}

#[test]
fn exports_without_the_kernel_calling_convention_are_rejected() {
    let Err(err) = VmvxLoader::new().load("vmvx-bytecode-fb", &data("vmvx_bad_cconv.vmfb"), &[])
    else {
        panic!("a module without kernel exports loaded");
    };
    assert_eq!(err.code(), StatusCode::InvalidArgument);
    assert!(err.message().contains(ENTRY_CCONV), "{err}");
    assert!(err.message().contains("0i_i"), "{err}");
}

#[test]
fn imports_are_resolved_when_the_executable_loads() {
    let Err(err) = VmvxLoader::new().load("vmvx-bytecode-fb", &data("vmvx_bad_import.vmfb"), &[])
    else {
        panic!("a module with a mismatched vmvx import loaded");
    };
    assert_eq!(err.code(), StatusCode::Internal, "{err}");
    assert!(err.message().contains("vmvx.fill.2d.x32"), "{err}");
}

#[test]
fn grids_run_on_any_number_of_workers() {
    let exe = load("vmvx_kernels.vmfb");
    let count = [7u32, 5, 3];
    let n = (count[0] * count[1] * count[2]) as usize;
    let input = device_buffer(4 * n as u64);
    let output = device_buffer(4 * n as u64);
    write_i32s(&input, &(0..n as i32).collect::<Vec<_>>());
    let expected: Vec<i32> = (0..n as i32).map(|i| i * 3 + i).collect();
    let bindings = [whole(&input), whole(&output)];
    dispatch_grid(&*exe, 0, &[3], &bindings, count).unwrap();
    assert_eq!(i32s(&output), expected);
    for workers in [2, 4, 9] {
        let pool = WorkerPool::new(workers);
        for round in 0..10 {
            write_i32s(&output, &vec![0; n]);
            dispatch_grid_parallel(&*exe, 0, &[3], &bindings, count, workers).unwrap();
            assert_eq!(
                i32s(&output),
                expected,
                "{workers} scoped workers, round {round}"
            );
            write_i32s(&output, &vec![0; n]);
            dispatch_grid_on_pool(&*exe, 0, &[3], &bindings, count, &pool).unwrap();
            assert_eq!(
                i32s(&output),
                expected,
                "{workers} pool workers, round {round}"
            );
        }
    }
}

#[test]
fn kernel_failures_become_statuses() {
    let exe = load("vmvx_kernels.vmfb");
    // vm.fail with NOT_FOUND (5).
    let err = dispatch_grid(&*exe, 1, &[5], &[], [1, 1, 1]).unwrap_err();
    assert_eq!(err.code(), StatusCode::NotFound);
    assert!(err.message().contains("kernel failed on purpose"), "{err}");
    let pool = WorkerPool::new(3);
    let err = dispatch_grid_on_pool(&*exe, 1, &[13], &[], [4, 4, 1], &pool).unwrap_err();
    assert_eq!(err.code(), StatusCode::Internal);

    // Reading one byte past a binding.
    let small = device_buffer(16);
    let err = dispatch_grid(&*exe, 2, &[], &[whole(&small)], [1, 1, 1]).unwrap_err();
    assert_eq!(err.code(), StatusCode::OutOfRange);

    // Constants are read-only.
    let err = dispatch_grid(&*exe, 5, &[1], &[], [1, 1, 1]).unwrap_err();
    assert_eq!(err.code(), StatusCode::PermissionDenied);

    // The worker contexts survive failures.
    let input = device_buffer(4);
    let output = device_buffer(4);
    write_i32s(&input, &[10]);
    dispatch_grid(&*exe, 0, &[2], &[whole(&input), whole(&output)], [1, 1, 1]).unwrap();
    assert_eq!(i32s(&output), [20]);
}

#[test]
fn kernels_cannot_keep_their_bindings() {
    let exe = load("vmvx_kernels.vmfb");
    let buffer = device_buffer(64);
    let err = dispatch_grid(&*exe, 3, &[], &[whole(&buffer)], [1, 1, 1]).unwrap_err();
    assert_eq!(err.code(), StatusCode::FailedPrecondition);
    assert!(err.message().contains("keep"), "{err}");
    let pool = WorkerPool::new(4);
    let err =
        dispatch_grid_on_pool(&*exe, 3, &[], &[whole(&buffer)], [8, 1, 1], &pool).unwrap_err();
    assert_eq!(err.code(), StatusCode::FailedPrecondition);
    drop(buffer);
    // Fresh worker contexts take over.
    let input = device_buffer(8);
    let output = device_buffer(8);
    write_i32s(&input, &[1, 2]);
    dispatch_grid_on_pool(
        &*exe,
        0,
        &[5],
        &[whole(&input), whole(&output)],
        [2, 1, 1],
        &pool,
    )
    .unwrap();
    assert_eq!(i32s(&output), [5, 11]);
}

#[test]
fn local_memory_is_provided_per_worker() {
    let exe = load("vmvx_kernels.vmfb");
    let output = device_buffer(4 * 9);
    let pool = WorkerPool::new(3);
    dispatch_grid_on_pool(&*exe, 4, &[], &[whole(&output)], [8, 1, 1], &pool).unwrap();
    assert_eq!(i32s(&output), [0, 1, 2, 3, 4, 5, 6, 7, 4096]);
}

#[test]
fn bad_export_ordinals_and_worker_ids_are_refused() {
    use iree_hal_local::{DispatchStateV0, WorkgroupStateV0};
    let exe = load("vmvx_kernels.vmfb");
    // Through the grid runner...
    let err = dispatch_grid(&*exe, 99, &[], &[], [1, 1, 1]).unwrap_err();
    assert_eq!(err.code(), StatusCode::OutOfRange);
    // ...and directly.
    let constants = [5u32];
    let state = DispatchStateV0::new(&exe.exports()[1], [1, 1], 1, 1, &constants, &[], &[]);
    for (ordinal, processor) in [(99, 0), (1, 1000)] {
        let workgroup = WorkgroupStateV0::new([0, 0], 0, processor, &mut []);
        // SAFETY: the state points at live constants and no bindings, as
        // export 1 (`fail`) expects; local memory is empty.
        let result = unsafe { exe.run_workgroup(ordinal, &state, &workgroup) };
        assert_eq!(result.unwrap_err().code(), StatusCode::InvalidArgument);
    }
}

/// Dispatches the `add` kernel of `vmvx_imports.vmfb`, which calls
/// `vmvx.add.2d.f32` with `constants` = [lhs_offset, rhs_offset,
/// out_offset, stride0, stride1, size0, size1] on three 64-byte bindings
/// holding 0..16 (lhs, rhs) and zeros (out).
fn add_2d(constants: [i32; 7]) -> iree_base::Result<Vec<f32>> {
    let exe = load("vmvx_imports.vmfb");
    let lhs = device_buffer(64);
    let rhs = device_buffer(64);
    let out = device_buffer(64);
    let values: Vec<u8> = (0..16).flat_map(|i| (i as f32).to_le_bytes()).collect();
    lhs.write(0, &values).unwrap();
    rhs.write(0, &values).unwrap();
    let constants = constants.map(|c| c as u32);
    dispatch_grid(
        &*exe,
        0,
        &constants,
        &[whole(&lhs), whole(&rhs), whole(&out)],
        [1, 1, 1],
    )?;
    let mut bytes = vec![0u8; 64];
    out.read(0, &mut bytes).unwrap();
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

#[test]
fn microkernel_arguments_are_validated() {
    // 2x3 view with row stride 4 at offsets 1, 2 -> 5.
    let out = add_2d([1, 2, 5, 4, 1, 2, 3]).unwrap();
    let mut expected = vec![0f32; 16];
    for i in 0..2 {
        for j in 0..3 {
            expected[5 + i * 4 + j] = (1 + i * 4 + j) as f32 + (2 + i * 4 + j) as f32;
        }
    }
    assert_eq!(out, expected);
    // The last element exactly: fine; one more: out of range.
    assert!(add_2d([13, 13, 13, 1, 1, 1, 3]).is_ok());
    assert_eq!(
        add_2d([14, 13, 13, 1, 1, 1, 3]).unwrap_err().code(),
        StatusCode::OutOfRange
    );
    // Sizes and strides must fit in 32 bits (negative ones do not).
    for bad in [
        [0, 0, 0, 1, 1, -1, 1],
        [0, 0, 0, 1, 1, 1, -5],
        [0, 0, 0, -2, 1, 1, 1],
    ] {
        let err = add_2d(bad).unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument, "{bad:?}: {err}");
        assert!(err.message().contains("buffer overflow for lhs"), "{err}");
    }
    // A stride of -1 passes upstream's wrapping checks (and makes upstream
    // read before the buffer); here the access itself fails.
    assert_eq!(
        add_2d([0, 0, 0, -1, 1, 2, 1]).unwrap_err().code(),
        StatusCode::OutOfRange
    );
    // Offsets that overflow when scaled to bytes.
    assert_eq!(
        add_2d([i32::MIN, 0, 0, 1, 1, 1, 1]).unwrap_err().code(),
        StatusCode::OutOfRange
    );
    // Empty views touch nothing.
    assert_eq!(add_2d([0, 0, 0, 1, 1, 0, 7]).unwrap(), vec![0f32; 16]);
}

// ---------------------------------------------------------------------------
// The vmvx module called directly.
// ---------------------------------------------------------------------------

struct Vmvx(Context);

impl Vmvx {
    fn new() -> Vmvx {
        Vmvx(Context::with_modules(Instance::new(), [module::create()]).unwrap())
    }

    fn call(&self, name: &str, args: &[Value]) -> iree_base::Result<Vec<Value>> {
        let f = self.0.lookup_function(&format!("vmvx.{name}"))?;
        self.0.invoke(&f, args)
    }
}

fn buf(bytes: Vec<u8>) -> (Ref, Value) {
    let r = Ref::new(iree_vm::Buffer::from_vec(bytes));
    (r.clone(), Value::Ref(Some(r)))
}

fn f32_buf(values: &[f32]) -> (Ref, Value) {
    buf(values.iter().flat_map(|v| v.to_le_bytes()).collect())
}

fn read_f32(r: &Ref) -> Vec<f32> {
    r.downcast::<iree_vm::Buffer>()
        .unwrap()
        .to_vec()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn read_i32(r: &Ref) -> Vec<i32> {
    r.downcast::<iree_vm::Buffer>()
        .unwrap()
        .to_vec()
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn i(v: i64) -> Value {
    Value::I64(v)
}

fn i32v(v: i32) -> Value {
    Value::I32(v)
}

#[allow(clippy::too_many_arguments, reason = "mirrors the mmt4d cconv")]
fn mmt4d_args(
    lhs: &Value,
    rhs: &Value,
    out: &Value,
    strides: [i64; 3],
    mnk: [i64; 3],
    tile: [i32; 3],
    flags: i32,
) -> Vec<Value> {
    vec![
        lhs.clone(),
        i(0),
        i(strides[0]),
        rhs.clone(),
        i(0),
        i(strides[1]),
        out.clone(),
        i(0),
        i(strides[2]),
        i(mnk[0]),
        i(mnk[1]),
        i(mnk[2]),
        i32v(tile[0]),
        i32v(tile[1]),
        i32v(tile[2]),
        i32v(flags),
    ]
}

#[test]
fn mmt4d_matches_a_reference_matmul() {
    let vmvx = Vmvx::new();
    // M=2, N=3, K=2 tiles of M0=2, N0=2, K0=3: a 4x6 by 6x6 matmul.
    let (m, n, k, m0, n0, k0) = (2usize, 3usize, 2usize, 2usize, 2usize, 3usize);
    let lhs: Vec<f32> = (0..m * k * m0 * k0).map(|x| (x % 7) as f32 - 3.0).collect();
    let rhs: Vec<f32> = (0..n * k * n0 * k0).map(|x| (x % 5) as f32 * 0.5).collect();
    let init: Vec<f32> = (0..m * n * m0 * n0).map(|x| x as f32).collect();
    let mut expected = init.clone();
    let mut zeroed = vec![0f32; init.len()];
    for i in 0..m {
        for j in 0..n {
            for i0 in 0..m0 {
                for j0 in 0..n0 {
                    let mut acc = 0f32;
                    for kk in 0..k {
                        for kk0 in 0..k0 {
                            let a = lhs[i * k * m0 * k0 + kk * m0 * k0 + i0 * k0 + kk0];
                            let b = rhs[j * k * n0 * k0 + kk * n0 * k0 + j0 * k0 + kk0];
                            acc += a * b;
                        }
                    }
                    let o = i * n * m0 * n0 + j * m0 * n0 + i0 * n0 + j0;
                    expected[o] += acc;
                    zeroed[o] = acc;
                }
            }
        }
    }
    let strides = [
        (k * m0 * k0) as i64,
        (k * n0 * k0) as i64,
        (n * m0 * n0) as i64,
    ];
    let (_, l) = f32_buf(&lhs);
    let (_, r) = f32_buf(&rhs);
    let (out_ref, o) = f32_buf(&init);
    let dims = [m as i64, n as i64, k as i64];
    let tile = [m0 as i32, n0 as i32, k0 as i32];
    vmvx.call("mmt4d", &mmt4d_args(&l, &r, &o, strides, dims, tile, 0x101))
        .unwrap();
    assert_eq!(read_f32(&out_ref), expected);
    vmvx.call("mmt4d", &mmt4d_args(&l, &r, &o, strides, dims, tile, 0x1))
        .unwrap();
    assert_eq!(read_f32(&out_ref), zeroed);

    // s8 x s8 -> s32.
    let lhs8: Vec<u8> = (0..m * k * m0 * k0)
        .map(|x| (x as i8).wrapping_mul(37) as u8)
        .collect();
    let rhs8: Vec<u8> = (0..n * k * n0 * k0)
        .map(|x| (x as i8).wrapping_mul(-53) as u8)
        .collect();
    let (_, l8) = buf(lhs8.clone());
    let (_, r8) = buf(rhs8.clone());
    let (out8, o8) = buf(vec![0; init.len() * 4]);
    vmvx.call(
        "mmt4d",
        &mmt4d_args(&l8, &r8, &o8, strides, dims, tile, 0x2),
    )
    .unwrap();
    let got = read_i32(&out8);
    for i0 in 0..m0 {
        for j0 in 0..n0 {
            let acc: i32 = (0..k)
                .flat_map(|kk| (0..k0).map(move |kk0| (kk, kk0)))
                .map(|(kk, kk0)| {
                    i32::from(lhs8[kk * m0 * k0 + i0 * k0 + kk0] as i8)
                        * i32::from(rhs8[kk * n0 * k0 + j0 * k0 + kk0] as i8)
                })
                .sum();
            assert_eq!(got[i0 * n0 + j0], acc);
        }
    }
}

#[test]
fn mmt4d_rejects_bad_arguments_without_touching_memory() {
    let vmvx = Vmvx::new();
    let (_, l) = f32_buf(&[1.0; 16]);
    let (_, r) = f32_buf(&[1.0; 16]);
    let (out, o) = f32_buf(&[7.0; 16]);
    let code = |strides, mnk, tile, flags| {
        vmvx.call("mmt4d", &mmt4d_args(&l, &r, &o, strides, mnk, tile, flags))
            .unwrap_err()
            .code()
    };
    // Unknown element types.
    assert_eq!(
        code([4, 4, 4], [1, 1, 1], [2, 2, 2], 0x3),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        code([4, 4, 4], [1, 1, 1], [2, 2, 2], 0),
        StatusCode::InvalidArgument
    );
    // Tiles far larger than the buffers (and than memory).
    assert_eq!(
        code([4, 4, 4], [1, 1, 1], [i32::MAX, i32::MAX, 1], 0x1),
        StatusCode::OutOfRange
    );
    assert_eq!(
        code([4, 4, 4], [1, 1, 1], [-4, 2, 2], 0x1),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        code([4, 4, 4], [1, 1, 1], [-1, -1, 0], 0x1),
        StatusCode::InvalidArgument
    );
    // Sizes that do not fit 32 bits.
    assert_eq!(
        code([4, 4, 4], [1 << 33, 1, 1], [1, 1, 1], 0x1),
        StatusCode::InvalidArgument
    );
    // Panels past the end.
    assert_eq!(
        code([4, 4, 4], [5, 1, 1], [2, 2, 1], 0x1),
        StatusCode::OutOfRange
    );
    assert_eq!(read_f32(&out), vec![7.0; 16]);
    // K0 = 0 reduces nothing: a non-accumulating tile is zeroed.
    vmvx.call(
        "mmt4d",
        &mmt4d_args(&l, &r, &o, [4, 4, 4], [1, 1, 1], [2, 2, 0], 0x1),
    )
    .unwrap();
    assert_eq!(read_f32(&out)[..4], [0.0; 4]);
    assert_eq!(read_f32(&out)[4..], [7.0; 12]);
}

#[test]
fn pack_and_unpack_round_trip_with_padding_and_transposes() {
    let vmvx = Vmvx::new();
    // A 5x7 source into 2x3 tiles of 4x3 (padding with -1).
    let src: Vec<f32> = (0..35).map(|x| x as f32).collect();
    for flags in [0x1, 0x101, 0x201, 0x301] {
        let transpose_outer = flags & 0x200 != 0;
        let transpose_inner = flags & 0x100 != 0;
        let (outer0, outer1) = if transpose_outer { (3, 2) } else { (2, 3) };
        let (tile0, tile1) = if transpose_inner { (3, 4) } else { (4, 3) };
        let (_, s) = f32_buf(&src);
        let (packed, p) = f32_buf(&[0.0; 72]);
        vmvx.call(
            "pack",
            &[
                s.clone(),
                i(0),
                i(7),
                i(1),
                p.clone(),
                i(0),
                i(outer1 * tile0 * tile1),
                i(tile0 * tile1),
                i(5),
                i(7),
                i(outer0),
                i(outer1),
                i(tile0),
                i(tile1),
                i(i64::from((-1.0f32).to_bits())),
                i32v(flags),
            ],
        )
        .unwrap();
        let packed_values = read_f32(&packed);
        assert_eq!(
            packed_values.iter().filter(|&&v| v == -1.0).count(),
            72 - 35
        );
        let (back, b) = f32_buf(&[0.0; 35]);
        vmvx.call(
            "unpack",
            &[
                p,
                i(0),
                i(outer1 * tile0 * tile1),
                i(tile0 * tile1),
                b,
                i(0),
                i(7),
                i(1),
                i(outer0),
                i(outer1),
                i(tile0),
                i(tile1),
                i(5),
                i(7),
                i32v(flags),
            ],
        )
        .unwrap();
        assert_eq!(read_f32(&back), src, "flags {flags:#x}");
    }
}

#[test]
fn pack_and_unpack_reject_bad_arguments() {
    let vmvx = Vmvx::new();
    let (_, s) = f32_buf(&[1.0; 16]);
    let (_, p) = f32_buf(&[0.0; 16]);
    let pack = |sizes: [i64; 6], flags: i32| {
        vmvx.call(
            "pack",
            &[
                s.clone(),
                i(0),
                i(4),
                i(1),
                p.clone(),
                i(0),
                i(4),
                i(4),
                i(sizes[0]),
                i(sizes[1]),
                i(sizes[2]),
                i(sizes[3]),
                i(sizes[4]),
                i(sizes[5]),
                i(0),
                i32v(flags),
            ],
        )
        .map(drop)
        .map_err(|e| e.code())
    };
    assert_eq!(pack([4, 4, 2, 2, 2, 2], 0x1), Ok(()));
    assert_eq!(
        pack([4, 4, 2, 2, 2, 2], 0x4),
        Err(StatusCode::InvalidArgument)
    );
    assert_eq!(pack([4, 4, 4, 4, 2, 2], 0x1), Err(StatusCode::OutOfRange));
    assert_eq!(
        pack([-1, 4, 2, 2, 2, 2], 0x1),
        Err(StatusCode::InvalidArgument)
    );
    assert_eq!(pack([4, 4, 2, 2, 0, 2], 0x1), Ok(()));
    let unpack = |sizes: [i64; 6], flags: i32| {
        vmvx.call(
            "unpack",
            &[
                p.clone(),
                i(0),
                i(4),
                i(4),
                s.clone(),
                i(0),
                i(4),
                i(1),
                i(sizes[0]),
                i(sizes[1]),
                i(sizes[2]),
                i(sizes[3]),
                i(sizes[4]),
                i(sizes[5]),
                i32v(flags),
            ],
        )
        .map(drop)
        .map_err(|e| e.code())
    };
    assert_eq!(unpack([2, 2, 2, 2, 4, 4], 0x1), Ok(()));
    // i8 unpack is not an upstream export type.
    assert_eq!(
        unpack([2, 2, 2, 2, 4, 4], 0x2),
        Err(StatusCode::InvalidArgument)
    );
    // Zero-sized tiles with a non-empty output.
    assert_eq!(
        unpack([2, 2, 0, 2, 4, 4], 0x1),
        Err(StatusCode::InvalidArgument)
    );
    assert_eq!(unpack([2, 2, 2, 2, 5, 4], 0x1), Err(StatusCode::OutOfRange));
}

#[test]
fn copies_fills_and_read_only_buffers() {
    let vmvx = Vmvx::new();
    let (_, input) = buf((0u8..32).collect());
    let (out, o) = buf(vec![0; 32]);
    // copy.2d.x16: a 2x2 view with strides (4, 2) elements -> rows of 2.
    vmvx.call(
        "copy.2d.x16",
        &[
            input.clone(),
            i(1),
            i(4),
            i(2),
            o.clone(),
            i(0),
            i(2),
            i(1),
            i(2),
            i(2),
        ],
    )
    .unwrap();
    let got = out.downcast::<iree_vm::Buffer>().unwrap().to_vec();
    assert_eq!(&got[..8], &[2, 3, 6, 7, 10, 11, 14, 15]);
    // fill.2d.x32 on 2 rows of 3 with row stride 4.
    let (filled, f) = buf(vec![0; 32]);
    vmvx.call("fill.2d.x32", &[i32v(-2), f, i(1), i(4), i(2), i(3)])
        .unwrap();
    assert_eq!(read_i32(&filled), [0, -2, -2, -2, 0, -2, -2, -2]);
    // Read-only output buffers are refused.
    let bytes: SharedBytes = Arc::new(vec![0u8; 32]);
    let rodata = Value::Ref(Some(Ref::new(
        iree_vm::Buffer::rodata(bytes, 0..32).unwrap(),
    )));
    let err = vmvx
        .call(
            "fill.2d.x32",
            &[i32v(1), rodata.clone(), i(0), i(1), i(1), i(1)],
        )
        .unwrap_err();
    assert_eq!(err.code(), StatusCode::PermissionDenied);
    // ...but may be read.
    vmvx.call(
        "copy.2d.x8",
        &[rodata, i(0), i(1), i(1), o, i(0), i(1), i(1), i(1), i(4)],
    )
    .unwrap();
    // A null buffer.
    let err = vmvx
        .call(
            "fill.2d.x32",
            &[i32v(1), Value::NULL, i(0), i(1), i(1), i(1)],
        )
        .unwrap_err();
    assert_eq!(err.code(), StatusCode::InvalidArgument);
}

#[test]
fn integer_division_by_zero_fails_instead_of_trapping() {
    let vmvx = Vmvx::new();
    for (name, lhs, rhs) in [
        ("divs.2d.i32", 1, 0),
        ("divu.2d.i32", 1, 0),
        ("divs.2d.i32", i32::MIN, -1),
    ] {
        let (_, l) = buf(lhs.to_le_bytes().to_vec());
        let (_, r) = buf(i32::to_le_bytes(rhs).to_vec());
        let (_, o) = buf(vec![0; 4]);
        let args = [
            l,
            i(0),
            i(1),
            i(1),
            r,
            i(0),
            i(1),
            i(1),
            o,
            i(0),
            i(1),
            i(1),
            i(1),
            i(1),
        ];
        let err = vmvx.call(name, &args).unwrap_err();
        assert_eq!(
            err.code(),
            StatusCode::InvalidArgument,
            "{name} {lhs} / {rhs}"
        );
    }
}

#[test]
fn query_tile_sizes_answers_matmul_roles() {
    let vmvx = Vmvx::new();
    let query = |flags: i32| {
        vmvx.call("query_tile_sizes.2d", &[i(10), i(20), i32v(flags)])
            .map(|r| match r[..] {
                [Value::I64(a), Value::I64(b)] => (a, b),
                _ => panic!("unexpected results {r:?}"),
            })
    };
    let (m, k) = query(0x101).unwrap();
    let (n, k2) = query(0x102).unwrap();
    assert_eq!(query(0x103).unwrap(), (m, n));
    assert_eq!(k, k2);
    if cfg!(target_arch = "x86_64") {
        assert_eq!(k, 1, "x86_64 f32 matmul tiles reduce one element at a time");
        assert_eq!(query(0x201).unwrap().1, 2);
    }
    assert_eq!(query(0x301).unwrap(), (8, 4));
    assert_eq!(
        query(0x100).unwrap_err().code(),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        query(0x001).unwrap_err().code(),
        StatusCode::InvalidArgument
    );
}

/// Calls every export with arguments drawn from edge values (negative,
/// zero, huge and wrapping sizes, strides, offsets, tile sizes and flags):
/// each call returns, successfully or with a status, and never panics.
#[test]
fn microkernels_survive_hostile_arguments() {
    const I64S: [i64; 12] = [
        -2,
        -1,
        0,
        1,
        2,
        3,
        5,
        1 << 31,
        1 << 33,
        1 << 62,
        i64::MAX,
        i64::MIN,
    ];
    const I32S: [i32; 8] = [-1, 0, 1, 2, 3, 0x101, 0x302, i32::MAX];
    let vmvx = Vmvx::new();
    let buffers: Vec<Value> = [0usize, 1, 7, 64]
        .iter()
        .map(|&len| buf((0..len as u8).collect()).1)
        .chain([Value::NULL])
        .collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let module = module::create();
    let mut succeeded = 0;
    for export in module.exports() {
        let cconv = iree_vm::Cconv::parse(&export.cconv).unwrap();
        for _ in 0..2000 {
            let args: Vec<Value> = cconv
                .args
                .iter()
                .map(|t| match t {
                    iree_vm::CconvType::I32 => i32v(I32S[next() as usize % I32S.len()]),
                    iree_vm::CconvType::I64 => i(I64S[next() as usize % I64S.len()]),
                    _ => buffers[next() as usize % buffers.len()].clone(),
                })
                .collect();
            succeeded += usize::from(vmvx.call(&export.name, &args).is_ok());
        }
    }
    // Some argument sets are valid, and run.
    assert!(succeeded > 100, "{succeeded} calls succeeded");
}

/// The elementwise and copy kernels stage rows in chunks; their results
/// must still be those of upstream's element-at-a-time loop, in place,
/// across chunk boundaries, and when the output overlaps an input shifted
/// by one element (where staging would differ).
#[test]
fn staged_kernels_match_the_element_loop_under_aliasing() {
    let vmvx = Vmvx::new();
    let n = 150i64; // more than two chunks per row
    let start: Vec<f32> = (0..2 * n + 1).map(|v| v as f32).collect();
    // Reference: out[k] = lhs[k] + rhs[k], one element at a time, in order.
    let reference = |lhs_at: usize, out_at: usize| {
        let mut m = start.clone();
        for k in 0..(2 * n) as usize {
            m[out_at + k] = m[lhs_at + k] + m[lhs_at + k];
        }
        m
    };
    for (lhs_at, out_at) in [(0, 0), (0, 1), (1, 0)] {
        let (r, v) = f32_buf(&start);
        // Two rows of `n` (stride0 = n), lhs and rhs both the same view.
        let view = |at: i64| [v.clone(), i(at), i(n), i(1)];
        let mut args = Vec::new();
        args.extend(view(lhs_at));
        args.extend(view(lhs_at));
        args.extend(view(out_at));
        args.extend([i(2), i(n)]);
        vmvx.call("add.2d.f32", &args).unwrap();
        assert_eq!(
            read_f32(&r),
            reference(lhs_at as usize, out_at as usize),
            "lhs at {lhs_at}, out at {out_at}"
        );
    }
    // A copy onto itself shifted by one element smears the first value
    // forward, as the element loop does.
    let (r, v) = f32_buf(&start);
    let args = [v.clone(), i(0), i(n), i(1), v, i(1), i(n), i(1), i(1), i(n)];
    vmvx.call("copy.2d.x32", &args).unwrap();
    let got = read_f32(&r);
    assert!(got[..=n as usize].iter().all(|&x| x == 0.0));
    assert_eq!(got[n as usize + 1..], start[n as usize + 1..]);
    // Strided (column) views gather and scatter element by element.
    let (r, v) = f32_buf(&start[..16]);
    let (o, ov) = f32_buf(&[0.0; 16]);
    let args = [v, i(0), i(1), i(4), ov, i(0), i(4), i(1), i(4), i(4)];
    vmvx.call("copy.2d.x32", &args).unwrap();
    let transposed: Vec<f32> = (0..16).map(|k| ((k % 4) * 4 + k / 4) as f32).collect();
    assert_eq!(read_f32(&o), transposed);
    drop(r);
}
