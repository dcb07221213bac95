//! The `vmvx` native module (version 0): the microkernels VMVX kernels
//! compiled with `--iree-vmvx-enable-microkernels` import
//! (`runtime/src/iree/modules/vmvx/exports.inl` and `module.c` upstream).
//!
//! All 32 exports of upstream 3.13, at their exact calling conventions:
//!
//! | exports | cconv | what |
//! |---|---|---|
//! | `{add,div,mul,sub}.2d.f32`, `{add,and,divs,divu,mul,or,shl,shrs,shru,sub,xor}.2d.i32` | `0rIIIrIIIrIIIII_v` | `out = lhs op rhs` over 2-D strided views of 32-bit elements |
//! | `{abs,ceil,exp,floor,log,neg,rsqrt}.2d.f32`, `ctlz.2d.i32` | `0rIIIrIIIII_v` | `out = op(in)` |
//! | `copy.2d.x{8,16,32,64}` | `0rIIIrIIIII_v` | strided 2-D copy of 1/2/4/8-byte elements |
//! | `fill.2d.x32` | `0irIIII_v` | fills rows of 32-bit elements |
//! | `mmt4d` | `0rIIrIIrIIIIIiiii_v` | tiled matmul (f32 x f32 -> f32, s8 x s8 -> s32) |
//! | `pack` / `unpack` | `0rIIIrIIIIIIIIIIi_v` / `0rIIIrIIIIIIIIIi_v` | 2-D <-> tiled 4-D layout changes (with padding) |
//! | `query_tile_sizes.2d` | `0IIi_II` | matmul tile sizes for this CPU |
//!
//! Offsets and strides are in elements. Every buffer operand is validated as
//! upstream validates it before anything is touched: a size or stride that
//! does not fit 32 bits fails with INVALID_ARGUMENT `buffer overflow for
//! <operand>`, a null buffer with INVALID_ARGUMENT, writing a read-only
//! buffer with PERMISSION_DENIED, and a view reaching past the buffer with
//! OUT_OF_RANGE. Every element access is bounds-checked again by the
//! buffer, so arguments that pass upstream's (wrapping) checks but still
//! point outside fail with OUT_OF_RANGE instead of touching other memory.
//! Upstream traps (SIGFPE) on integer division by zero and `INT_MIN / -1`;
//! here those fail with INVALID_ARGUMENT.

use std::sync::Arc;

use iree_base::{bail, Result, Status, StatusCode};
use iree_vm::buffer::{buffer_type, Buffer};
use iree_vm::native::NativeModuleBuilder;
use iree_vm::refs::deref_as;
use iree_vm::{Module, Value};

/// The module name kernels import from.
pub const MODULE_NAME: &str = "vmvx";

/// The module version (`IREE_VMVX_MODULE_VERSION_0_0`).
pub const MODULE_VERSION: u32 = 0;

/// Every export: name and calling convention, sorted by name.
pub const EXPORTS: &[(&str, &str)] = &[
    ("abs.2d.f32", UNARY_CCONV),
    ("add.2d.f32", BINARY_CCONV),
    ("add.2d.i32", BINARY_CCONV),
    ("and.2d.i32", BINARY_CCONV),
    ("ceil.2d.f32", UNARY_CCONV),
    ("copy.2d.x16", UNARY_CCONV),
    ("copy.2d.x32", UNARY_CCONV),
    ("copy.2d.x64", UNARY_CCONV),
    ("copy.2d.x8", UNARY_CCONV),
    ("ctlz.2d.i32", UNARY_CCONV),
    ("div.2d.f32", BINARY_CCONV),
    ("divs.2d.i32", BINARY_CCONV),
    ("divu.2d.i32", BINARY_CCONV),
    ("exp.2d.f32", UNARY_CCONV),
    ("fill.2d.x32", FILL_CCONV),
    ("floor.2d.f32", UNARY_CCONV),
    ("log.2d.f32", UNARY_CCONV),
    ("mmt4d", MMT4D_CCONV),
    ("mul.2d.f32", BINARY_CCONV),
    ("mul.2d.i32", BINARY_CCONV),
    ("neg.2d.f32", UNARY_CCONV),
    ("or.2d.i32", BINARY_CCONV),
    ("pack", PACK_CCONV),
    ("query_tile_sizes.2d", QUERY_TILE_SIZES_CCONV),
    ("rsqrt.2d.f32", UNARY_CCONV),
    ("shl.2d.i32", BINARY_CCONV),
    ("shrs.2d.i32", BINARY_CCONV),
    ("shru.2d.i32", BINARY_CCONV),
    ("sub.2d.f32", BINARY_CCONV),
    ("sub.2d.i32", BINARY_CCONV),
    ("unpack", UNPACK_CCONV),
    ("xor.2d.i32", BINARY_CCONV),
];

const BINARY_CCONV: &str = "0rIIIrIIIrIIIII_v";
const UNARY_CCONV: &str = "0rIIIrIIIII_v";
const FILL_CCONV: &str = "0irIIII_v";
const MMT4D_CCONV: &str = "0rIIrIIrIIIIIiiii_v";
const PACK_CCONV: &str = "0rIIIrIIIIIIIIIIi_v";
const UNPACK_CCONV: &str = "0rIIIrIIIIIIIIIi_v";
const QUERY_TILE_SIZES_CCONV: &str = "0IIi_II";

// Flags shared with the compiler (`builtins/ukernel/exported_bits.h`).
const MMT4D_TYPE_MASK: u32 = 0xff;
const MMT4D_TYPE_F32F32F32: u32 = 0x01;
const MMT4D_TYPE_S8S8S32: u32 = 0x02;
const MMT4D_ACCUMULATE: u32 = 0x100;
const PACK_TYPE_MASK: u32 = 0xff;
const PACK_TYPE_F32F32: u32 = 0x01;
const PACK_TYPE_I8I8: u32 = 0x02;
const PACK_TYPE_I32I32: u32 = 0x03;
const PACK_TRANSPOSE_INNER: u32 = 0x100;
const PACK_TRANSPOSE_OUTER: u32 = 0x200;
const UNPACK_TYPE_MASK: u32 = 0xff;
const UNPACK_TYPE_F32F32: u32 = 0x01;
const UNPACK_TYPE_I32I32: u32 = 0x03;
const UNPACK_TRANSPOSE_INNER: u32 = 0x100;
const UNPACK_TRANSPOSE_OUTER: u32 = 0x200;
const QUERY_ROLE_MASK: u32 = 0xff;
const QUERY_ROLE_LHS: u32 = 0x01;
const QUERY_ROLE_RHS: u32 = 0x02;
const QUERY_ROLE_RESULT: u32 = 0x03;
const QUERY_OPERATION_MASK: u32 = 0xff00;
const QUERY_MATMUL_F32F32F32: u32 = 0x0100;
const QUERY_MATMUL_I8I8I32: u32 = 0x0200;
const QUERY_MATMUL_F16F16F32: u32 = 0x0300;
const QUERY_MATMUL_BF16BF16BF16: u32 = 0x0600;

/// Creates the `vmvx` module.
pub fn create() -> Arc<dyn Module> {
    let mut builder = NativeModuleBuilder::<()>::new(MODULE_NAME, MODULE_VERSION);
    for &(name, cconv) in EXPORTS {
        let f = implementation(name);
        builder = builder
            .export_raw(name, cconv, move |_, args, results| f(args, results))
            // The table above is fixed and its cconvs parse (see the tests).
            .expect("the vmvx export table is well-formed");
    }
    builder.build(|_| Ok(()))
}

type Export = fn(&[Value], &mut Vec<Value>) -> Result<()>;

/// The body of export `name`.
fn implementation(name: &str) -> Export {
    match name {
        "add.2d.f32" => |a, _| binary(a, |x, y| Ok(f(f32b(x) + f32b(y)))),
        "div.2d.f32" => |a, _| binary(a, |x, y| Ok(f(f32b(x) / f32b(y)))),
        "mul.2d.f32" => |a, _| binary(a, |x, y| Ok(f(f32b(x) * f32b(y)))),
        "sub.2d.f32" => |a, _| binary(a, |x, y| Ok(f(f32b(x) - f32b(y)))),
        "add.2d.i32" => |a, _| binary(a, |x, y| Ok(x.wrapping_add(y))),
        "and.2d.i32" => |a, _| binary(a, |x, y| Ok(x & y)),
        "divs.2d.i32" => |a, _| binary(a, divs),
        "divu.2d.i32" => |a, _| binary(a, divu),
        "mul.2d.i32" => |a, _| binary(a, |x, y| Ok(x.wrapping_mul(y))),
        "or.2d.i32" => |a, _| binary(a, |x, y| Ok(x | y)),
        // Shift amounts wrap at 32 as the x86 and arm64 shift instructions
        // that upstream's C shifts compile to do.
        "shl.2d.i32" => |a, _| binary(a, |x, y| Ok(x.wrapping_shl(y))),
        "shrs.2d.i32" => |a, _| binary(a, |x, y| Ok((x as i32).wrapping_shr(y) as u32)),
        "shru.2d.i32" => |a, _| binary(a, |x, y| Ok(x.wrapping_shr(y))),
        "sub.2d.i32" => |a, _| binary(a, |x, y| Ok(x.wrapping_sub(y))),
        "xor.2d.i32" => |a, _| binary(a, |x, y| Ok(x ^ y)),
        "abs.2d.f32" => |a, _| unary(a, |x| f(f32b(x).abs())),
        "ceil.2d.f32" => |a, _| unary(a, |x| f(f32b(x).ceil())),
        "ctlz.2d.i32" => |a, _| unary(a, u32::leading_zeros),
        "exp.2d.f32" => |a, _| unary(a, |x| f(f32b(x).exp())),
        "floor.2d.f32" => |a, _| unary(a, |x| f(f32b(x).floor())),
        "log.2d.f32" => |a, _| unary(a, |x| f(f32b(x).ln())),
        "neg.2d.f32" => |a, _| unary(a, |x| f(-f32b(x))),
        "rsqrt.2d.f32" => |a, _| unary(a, |x| f(1.0 / f32b(x).sqrt())),
        "copy.2d.x8" => |a, _| copy::<1>(a),
        "copy.2d.x16" => |a, _| copy::<2>(a),
        "copy.2d.x32" => |a, _| copy::<4>(a),
        "copy.2d.x64" => |a, _| copy::<8>(a),
        "fill.2d.x32" => |a, _| fill(a),
        "mmt4d" => |a, _| mmt4d(a),
        "pack" => |a, _| pack(a),
        "unpack" => |a, _| unpack(a),
        "query_tile_sizes.2d" => query_tile_sizes,
        _ => |_, _| {
            Err(Status::new(
                StatusCode::Unimplemented,
                "unknown vmvx export",
            ))
        },
    }
}

fn f32b(bits: u32) -> f32 {
    f32::from_bits(bits)
}

fn f(value: f32) -> u32 {
    value.to_bits()
}

fn divs(x: u32, y: u32) -> Result<u32> {
    (x as i32)
        .checked_div(y as i32)
        .map(|q| q as u32)
        .ok_or_else(|| {
            Status::new(
                StatusCode::InvalidArgument,
                "integer division by zero or overflow",
            )
        })
}

fn divu(x: u32, y: u32) -> Result<u32> {
    x.checked_div(y)
        .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "integer division by zero"))
}

// ---------------------------------------------------------------------------
// Arguments and views
// ---------------------------------------------------------------------------

fn signature_mismatch() -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        "argument/result signature mismatch",
    )
}

fn arg_i64(args: &[Value], index: usize) -> Result<i64> {
    match args.get(index) {
        Some(Value::I64(v)) => Ok(*v),
        _ => Err(signature_mismatch()),
    }
}

fn arg_i32(args: &[Value], index: usize) -> Result<i32> {
    match args.get(index) {
        Some(Value::I32(v)) => Ok(*v),
        _ => Err(signature_mismatch()),
    }
}

fn arg_buffer(args: &[Value], index: usize) -> Result<&Buffer> {
    match args.get(index) {
        Some(Value::Ref(r)) => deref_as::<Buffer>(r, buffer_type()),
        _ => Err(signature_mismatch()),
    }
}

#[cold]
fn out_of_bounds(offset: u64, length: u64, alignment: u64, buffer_length: usize) -> Status {
    Status::new(
        StatusCode::OutOfRange,
        format!(
            "out-of-bounds access detected (offset={offset}, length={length}, \
             alignment={alignment}, buffer length={buffer_length})"
        ),
    )
}

/// A validated 2-D view: element `(i, j)` is element
/// `base + i * stride0 + j * stride1` of `buffer` (in elements).
struct View<'a> {
    buffer: &'a Buffer,
    base: i64,
    stride0: i64,
    stride1: i64,
}

impl View<'_> {
    fn index(&self, i: u64, j: u64) -> i64 {
        self.base
            .wrapping_add((i as i64).wrapping_mul(self.stride0))
            .wrapping_add((j as i64).wrapping_mul(self.stride1))
    }
}

/// The shape of a 2-D operand as the kernel passes it.
#[derive(Clone, Copy)]
struct Shape2d {
    offset: i64,
    stride0: i64,
    stride1: i64,
    size0: i64,
    size1: i64,
}

/// Validates and maps operand `name` (buffer argument `arg`) as upstream's
/// `MAP_BUFFER_2D_*` does, with the same wrapping arithmetic: sizes and
/// strides must fit 32 bits, then the buffer must be non-null (and mutable
/// for `writable`), then the span `[offset, offset + ((size0 - 1) * stride0 +
/// (size1 - 1) * stride1 + 1)) * elem` must lie within it.
fn map_2d<'a>(
    args: &'a [Value],
    arg: usize,
    name: &str,
    elem: u64,
    shape: Shape2d,
    writable: bool,
) -> Result<View<'a>> {
    const HIGH: u64 = 0xffff_ffff_0000_0000;
    let (size0, size1) = (shape.size0 as u64, shape.size1 as u64);
    let (stride0, stride1) = (shape.stride0 as u64, shape.stride1 as u64);
    let overflow = (size0 & HIGH)
        | (size1 & HIGH)
        | (stride0.wrapping_add(1) & HIGH)
        | (stride1.wrapping_add(1) & HIGH);
    let last_index = size0
        .wrapping_sub(1)
        .wrapping_mul(stride0)
        .wrapping_add(size1.wrapping_sub(1).wrapping_mul(stride1));
    let length = last_index.wrapping_add(1).wrapping_mul(elem);
    let offset = elem.wrapping_mul(shape.offset as u64);
    if overflow != 0 {
        bail!(InvalidArgument, "buffer overflow for {name}");
    }
    let buffer = arg_buffer(args, arg)?;
    if writable && !buffer.is_mutable() {
        bail!(
            PermissionDenied,
            "buffer is read-only and cannot be mapped for mutation"
        );
    }
    let offset = offset & !(elem - 1);
    let length = length & !(elem - 1);
    if offset.wrapping_add(length) > buffer.len() as u64 {
        return Err(out_of_bounds(offset, length, elem, buffer.len()));
    }
    Ok(View {
        buffer,
        base: shape.offset,
        stride0: shape.stride0,
        stride1: shape.stride1,
    })
}

/// The shape of a strided operand from four consecutive arguments
/// (offset, stride0, stride1) plus the shared sizes.
fn shape_at(args: &[Value], first: usize, size0: i64, size1: i64) -> Result<Shape2d> {
    Ok(Shape2d {
        offset: arg_i64(args, first)?,
        stride0: arg_i64(args, first + 1)?,
        stride1: arg_i64(args, first + 2)?,
        size0,
        size1,
    })
}

/// The byte offset and length of `count` elements from element `index`,
/// checked to lie within `buffer` (before anything is allocated for them).
fn element_bytes(buffer: &Buffer, index: i64, count: u64, elem: usize) -> Result<(usize, usize)> {
    let elem = elem as u64;
    let offset = (index as u64).checked_mul(elem);
    let length = count.checked_mul(elem);
    match (offset, length) {
        (Some(offset), Some(length))
            if offset
                .checked_add(length)
                .is_some_and(|end| end <= buffer.len() as u64) =>
        {
            Ok((offset as usize, length as usize))
        }
        _ => Err(out_of_bounds(
            (index as u64).wrapping_mul(elem),
            count.wrapping_mul(elem),
            elem,
            buffer.len(),
        )),
    }
}

// ---------------------------------------------------------------------------
// Elementwise, copy and fill
// ---------------------------------------------------------------------------

/// Elements staged per step of the elementwise and copy kernels.
const CHUNK: usize = 64;

impl View<'_> {
    /// Reads elements `(i, j..j + out.len())` under one bounds check;
    /// `false` (nothing read) when one is out of bounds.
    fn gather<const N: usize>(&self, i: u64, j: u64, out: &mut [[u8; N]]) -> bool {
        self.buffer.try_gather(self.index(i, j), self.stride1, out)
    }

    /// Writes elements `(i, j..j + values.len())` in order; `false` (nothing
    /// written) when one is out of bounds or the buffer is read-only.
    fn scatter<const N: usize>(&self, i: u64, j: u64, values: &[[u8; N]]) -> bool {
        self.buffer
            .try_scatter(self.index(i, j), self.stride1, values)
    }

    /// True when this output view may be written a chunk at a time after its
    /// inputs from `input` are read, with the same result as upstream's
    /// element-at-a-time loop: `input` shares no bytes with it, or it is the
    /// very same view (in place) with distinct elements along a row.
    fn stages_over(&self, input: &View<'_>) -> bool {
        !self.buffer.may_share_bytes(input.buffer)
            || (std::ptr::eq(self.buffer, input.buffer)
                && (self.base, self.stride0, self.stride1)
                    == (input.base, input.stride0, input.stride1)
                && self.stride1 != 0)
    }
}

/// Runs `f` over the elements of a `size0 x size1` view in row-major
/// order, starting at `(i0, j0)`: upstream's loop, which the staged kernels
/// fall back on for aliasing views and for the exact point of a failure.
fn each_element_from(
    (i0, j0): (u64, u64),
    size0: i64,
    size1: i64,
    mut f: impl FnMut(u64, u64) -> Result<()>,
) -> Result<()> {
    for i in i0..size0 as u64 {
        for j in if i == i0 { j0 } else { 0 }..size1 as u64 {
            f(i, j)?;
        }
    }
    Ok(())
}

/// Runs `step(i, j, n)` over the chunks of at most [`CHUNK`] elements of
/// each row, in order. When a step returns `false` (it could not run the
/// chunk as a whole and did nothing), the rest of the view, from the start
/// of that chunk, goes element by element through `element`.
fn each_chunk(
    size0: i64,
    size1: i64,
    staged: bool,
    mut step: impl FnMut(u64, u64, usize) -> bool,
    element: impl FnMut(u64, u64) -> Result<()>,
) -> Result<()> {
    if !staged {
        return each_element_from((0, 0), size0, size1, element);
    }
    for i in 0..size0 as u64 {
        let mut j = 0;
        while j < size1 as u64 {
            let n = CHUNK.min((size1 as u64 - j) as usize);
            if !step(i, j, n) {
                return each_element_from((i, j), size0, size1, element);
            }
            j += n as u64;
        }
    }
    Ok(())
}

/// `out = op(lhs, rhs)` over 32-bit elements (`rIIIrIIIrIIIII`).
fn binary(args: &[Value], op: impl Fn(u32, u32) -> Result<u32>) -> Result<()> {
    let (size0, size1) = (arg_i64(args, 12)?, arg_i64(args, 13)?);
    let lhs = map_2d(args, 0, "lhs", 4, shape_at(args, 1, size0, size1)?, false)?;
    let rhs = map_2d(args, 4, "rhs", 4, shape_at(args, 5, size0, size1)?, false)?;
    let out = map_2d(args, 8, "out", 4, shape_at(args, 9, size0, size1)?, true)?;
    if size1 == 0 {
        return Ok(());
    }
    let (mut x, mut y) = ([[0u8; 4]; CHUNK], [[0u8; 4]; CHUNK]);
    each_chunk(
        size0,
        size1,
        out.stages_over(&lhs) && out.stages_over(&rhs),
        |i, j, n| {
            if !(lhs.gather(i, j, &mut x[..n]) && rhs.gather(i, j, &mut y[..n])) {
                return false;
            }
            for (a, b) in x[..n].iter_mut().zip(&y[..n]) {
                match op(u32::from_le_bytes(*a), u32::from_le_bytes(*b)) {
                    Ok(v) => *a = v.to_le_bytes(),
                    // The element path reaches the same failure, after
                    // writing the elements before it.
                    Err(_) => return false,
                }
            }
            out.scatter(i, j, &x[..n])
        },
        |i, j| {
            let x = lhs.buffer.load_i32(lhs.index(i, j))? as u32;
            let y = rhs.buffer.load_i32(rhs.index(i, j))? as u32;
            out.buffer.store_i32(out.index(i, j), op(x, y)? as i32)
        },
    )
}

/// `out = op(in)` over 32-bit elements (`rIIIrIIIII`).
fn unary(args: &[Value], op: impl Fn(u32) -> u32) -> Result<()> {
    let (size0, size1) = (arg_i64(args, 8)?, arg_i64(args, 9)?);
    let input = map_2d(args, 0, "in", 4, shape_at(args, 1, size0, size1)?, false)?;
    let out = map_2d(args, 4, "out", 4, shape_at(args, 5, size0, size1)?, true)?;
    if size1 == 0 {
        return Ok(());
    }
    let mut x = [[0u8; 4]; CHUNK];
    each_chunk(
        size0,
        size1,
        out.stages_over(&input),
        |i, j, n| {
            if !input.gather(i, j, &mut x[..n]) {
                return false;
            }
            for a in &mut x[..n] {
                *a = op(u32::from_le_bytes(*a)).to_le_bytes();
            }
            out.scatter(i, j, &x[..n])
        },
        |i, j| {
            let x = input.buffer.load_i32(input.index(i, j))? as u32;
            out.buffer.store_i32(out.index(i, j), op(x) as i32)
        },
    )
}

/// Strided 2-D copy of `N`-byte elements (`rIIIrIIIII`).
fn copy<const N: usize>(args: &[Value]) -> Result<()> {
    let (size0, size1) = (arg_i64(args, 8)?, arg_i64(args, 9)?);
    let elem = N as u64;
    let input = map_2d(args, 0, "in", elem, shape_at(args, 1, size0, size1)?, false)?;
    let out = map_2d(args, 4, "out", elem, shape_at(args, 5, size0, size1)?, true)?;
    if size1 == 0 {
        return Ok(());
    }
    let mut x = [[0u8; N]; CHUNK];
    each_chunk(
        size0,
        size1,
        out.stages_over(&input),
        |i, j, n| input.gather(i, j, &mut x[..n]) && out.scatter(i, j, &x[..n]),
        |i, j| {
            let (from, to) = (input.index(i, j), out.index(i, j));
            match N {
                1 => out.buffer.store_i8(to, input.buffer.load_i8u(from)?),
                2 => out.buffer.store_i16(to, input.buffer.load_i16u(from)?),
                4 => out.buffer.store_i32(to, input.buffer.load_i32(from)?),
                _ => out.buffer.store_i64(to, input.buffer.load_i64(from)?),
            }
        },
    )
}

/// Fills `size0` rows of `size1` 32-bit elements (`irIIII`).
fn fill(args: &[Value]) -> Result<()> {
    let value = arg_i32(args, 0)?;
    let shape = Shape2d {
        offset: arg_i64(args, 2)?,
        stride0: arg_i64(args, 3)?,
        stride1: 1,
        size0: arg_i64(args, 4)?,
        size1: arg_i64(args, 5)?,
    };
    let out = map_2d(args, 1, "out", 4, shape, true)?;
    if shape.size1 == 0 {
        return Ok(());
    }
    for i in 0..shape.size0 as u64 {
        out.buffer.fill_i32(out.index(i, 0), shape.size1, value)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// mmt4d
// ---------------------------------------------------------------------------

/// Whether upstream runs an f32 tile of this shape with an architecture
/// tile function (all of which use fused multiply-adds) on this CPU; the
/// generic tile multiplies and adds separately.
fn f32_tile_uses_fma(m0: i64, n0: i64, k0: i64) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2_fma = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c");
        let avx512 = avx2_fma
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512cd");
        k0 == 1
            && ((n0 == 8 && matches!(m0, 1 | 2 | 4 | 8) && avx2_fma)
                || (n0 == 16 && matches!(m0, 1 | 2 | 4 | 8 | 16) && avx512))
    }
    #[cfg(target_arch = "aarch64")]
    {
        // Every arm64 f32 tile function uses fused multiply-adds.
        let _ = (m0, n0, k0);
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (m0, n0, k0);
        false
    }
}

/// `mmt4d` (`rIIrIIrIIIIIiiii`): `out[i][j] (+)= lhs[i] * rhs[j]^T` over
/// `M x N` tiles of `M0 x N0`, reducing `K` tiles of `K0`.
fn mmt4d(args: &[Value]) -> Result<()> {
    let (m, n, k) = (arg_i64(args, 9)?, arg_i64(args, 10)?, arg_i64(args, 11)?);
    let m0 = i64::from(arg_i32(args, 12)?);
    let n0 = i64::from(arg_i32(args, 13)?);
    let k0 = i64::from(arg_i32(args, 14)?);
    let flags = arg_i32(args, 15)? as u32;
    let (in_elem, out_elem): (usize, usize) = match flags & MMT4D_TYPE_MASK {
        MMT4D_TYPE_F32F32F32 => (4, 4),
        MMT4D_TYPE_S8S8S32 => (1, 4),
        _ => bail!(InvalidArgument, "unhandled flags"),
    };
    let lhs_tile = m0.wrapping_mul(k0);
    let rhs_tile = n0.wrapping_mul(k0);
    let out_tile = m0.wrapping_mul(n0);
    let row = |offset: usize, stride: usize, size0: i64, size1: i64| -> Result<Shape2d> {
        Ok(Shape2d {
            offset: arg_i64(args, offset)?,
            stride0: arg_i64(args, stride)?,
            stride1: 1,
            size0,
            size1,
        })
    };
    let e_in = in_elem as u64;
    let lhs = map_2d(
        args,
        0,
        "lhs",
        e_in,
        row(1, 2, m, k.wrapping_mul(lhs_tile))?,
        false,
    )?;
    let rhs = map_2d(
        args,
        3,
        "rhs",
        e_in,
        row(4, 5, n, k.wrapping_mul(rhs_tile))?,
        false,
    )?;
    let out = map_2d(
        args,
        6,
        "out",
        out_elem as u64,
        row(7, 8, m, n.wrapping_mul(out_tile))?,
        true,
    )?;

    let accumulate = flags & MMT4D_ACCUMULATE != 0;
    if m <= 0 || n <= 0 || (k == 0 && accumulate) {
        return Ok(());
    }
    if k < 0 || m0 < 0 || n0 < 0 || k0 < 0 {
        bail!(
            InvalidArgument,
            "mmt4d sizes must not be negative (K={k}, M0={m0}, N0={n0}, K0={k0})"
        );
    }
    if out_tile == 0 {
        // M0 or N0 is 0: there is no output element to compute.
        return Ok(());
    }
    let lhs_panel = (k as u64).saturating_mul(lhs_tile as u64);
    let rhs_panel = (k as u64).saturating_mul(rhs_tile as u64);
    let dims = TileDims {
        k: k as usize,
        m0: m0 as usize,
        n0: n0 as usize,
        k0: k0 as usize,
    };
    // One output tile must fit the output buffer before memory is set
    // aside for it (panels are checked as they are read).
    element_bytes(out.buffer, 0, out_tile as u64, out_elem)?;
    let tile_len = out_tile as usize;
    let f32_type = flags & MMT4D_TYPE_MASK == MMT4D_TYPE_F32F32F32;
    let fma = f32_type && f32_tile_uses_fma(m0, n0, k0);
    let mut bytes = Vec::new();
    let mut lhs_values = Operand::default();
    let mut rhs_values = Operand::default();
    let mut acc = Accumulator::new(f32_type, tile_len);
    for i in 0..m as u64 {
        read_operand(
            lhs.buffer,
            lhs.index(i, 0),
            lhs_panel,
            in_elem,
            &mut bytes,
            &mut lhs_values,
        )?;
        for j in 0..n as u64 {
            read_operand(
                rhs.buffer,
                rhs.index(j, 0),
                rhs_panel,
                in_elem,
                &mut bytes,
                &mut rhs_values,
            )?;
            let out_index = out
                .index(i, 0)
                .wrapping_add((j as i64).wrapping_mul(out_tile));
            let (offset, length) = element_bytes(out.buffer, out_index, out_tile as u64, out_elem)?;
            bytes.resize(length, 0);
            if accumulate {
                out.buffer.read_into(offset, &mut bytes)?;
            } else {
                bytes.fill(0);
            }
            acc.load(&bytes);
            match (&mut acc, &lhs_values, &rhs_values) {
                (Accumulator::F32(acc), Operand::F32(l), Operand::F32(r)) => {
                    tile_f32_dispatch(acc, l, r, dims, fma)
                }
                (Accumulator::I32(acc), Operand::S8(l), Operand::S8(r)) => {
                    tile_s8s8s32(acc, l, r, dims)
                }
                _ => bail!(Internal, "mmt4d operand types disagree"),
            }
            acc.store(&mut bytes);
            out.buffer.write_bytes(offset, &bytes)?;
        }
    }
    Ok(())
}

/// The inner sizes of one mmt4d tile computation.
#[derive(Clone, Copy)]
struct TileDims {
    k: usize,
    m0: usize,
    n0: usize,
    k0: usize,
}

/// A decoded LHS or RHS panel.
#[derive(Default)]
enum Operand {
    #[default]
    Empty,
    F32(Vec<f32>),
    S8(Vec<i8>),
}

/// Reads `count` elements of `elem` bytes (4: f32, 1: s8) from element
/// `index` of `buffer` into `into`, through the scratch `bytes`.
fn read_operand(
    buffer: &Buffer,
    index: i64,
    count: u64,
    elem: usize,
    bytes: &mut Vec<u8>,
    into: &mut Operand,
) -> Result<()> {
    let (offset, length) = element_bytes(buffer, index, count, elem)?;
    bytes.resize(length, 0);
    buffer.read_into(offset, bytes)?;
    if elem == 4 {
        let mut values = match std::mem::take(into) {
            Operand::F32(v) => v,
            _ => Vec::new(),
        };
        values.clear();
        values.extend(bytes.chunks_exact(4).map(|c| {
            let mut word = [0u8; 4];
            word.copy_from_slice(c);
            f32::from_le_bytes(word)
        }));
        *into = Operand::F32(values);
    } else {
        let mut values = match std::mem::take(into) {
            Operand::S8(v) => v,
            _ => Vec::new(),
        };
        values.clear();
        values.extend(bytes.iter().map(|&b| b as i8));
        *into = Operand::S8(values);
    }
    Ok(())
}

/// One output tile's accumulators.
enum Accumulator {
    F32(Vec<f32>),
    I32(Vec<i32>),
}

impl Accumulator {
    fn new(f32_type: bool, len: usize) -> Accumulator {
        if f32_type {
            Accumulator::F32(vec![0.0; len])
        } else {
            Accumulator::I32(vec![0; len])
        }
    }

    /// Decodes little-endian 32-bit values from `bytes`.
    fn load(&mut self, bytes: &[u8]) {
        let words = bytes.chunks_exact(4).map(|c| {
            let mut word = [0u8; 4];
            word.copy_from_slice(c);
            word
        });
        match self {
            Accumulator::F32(v) => v
                .iter_mut()
                .zip(words)
                .for_each(|(x, w)| *x = f32::from_le_bytes(w)),
            Accumulator::I32(v) => v
                .iter_mut()
                .zip(words)
                .for_each(|(x, w)| *x = i32::from_le_bytes(w)),
        }
    }

    /// Encodes the values as little-endian bytes into `bytes`.
    fn store(&self, bytes: &mut [u8]) {
        let chunks = bytes.chunks_exact_mut(4);
        match self {
            Accumulator::F32(v) => chunks
                .zip(v)
                .for_each(|(c, x)| c.copy_from_slice(&x.to_le_bytes())),
            Accumulator::I32(v) => chunks
                .zip(v)
                .for_each(|(c, x)| c.copy_from_slice(&x.to_le_bytes())),
        }
    }
}

/// One f32 output tile: for every output element, `acc (+)= lhs * rhs` over
/// `k` then `k0`, in upstream's order, fused (`FMA`) or not.
#[inline(always)]
fn tile_f32<const FMA: bool>(acc: &mut [f32], lhs: &[f32], rhs: &[f32], d: TileDims) {
    let (lhs_step, rhs_step) = (d.m0 * d.k0, d.n0 * d.k0);
    for kk in 0..d.k {
        let l = &lhs[kk * lhs_step..(kk + 1) * lhs_step];
        let r = &rhs[kk * rhs_step..(kk + 1) * rhs_step];
        for kk0 in 0..d.k0 {
            for (i0, row) in acc.chunks_exact_mut(d.n0.max(1)).enumerate().take(d.m0) {
                let a = l[i0 * d.k0 + kk0];
                for (j0, o) in row.iter_mut().enumerate() {
                    let b = r[j0 * d.k0 + kk0];
                    *o = if FMA { a.mul_add(b, *o) } else { *o + a * b };
                }
            }
        }
    }
}

/// [`tile_f32`] compiled with hardware fused multiply-adds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn tile_f32_fma_x86(acc: &mut [f32], lhs: &[f32], rhs: &[f32], d: TileDims) {
    tile_f32::<true>(acc, lhs, rhs, d)
}

fn tile_f32_dispatch(acc: &mut [f32], lhs: &[f32], rhs: &[f32], d: TileDims, fma: bool) {
    if !fma {
        return tile_f32::<false>(acc, lhs, rhs, d);
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports FMA (checked just above), the only
        // requirement of a `target_feature(enable = "fma")` function.
        return unsafe { tile_f32_fma_x86(acc, lhs, rhs, d) };
    }
    tile_f32::<true>(acc, lhs, rhs, d)
}

/// One s8 x s8 -> s32 output tile (wrapping, as the C arithmetic does).
fn tile_s8s8s32(acc: &mut [i32], lhs: &[i8], rhs: &[i8], d: TileDims) {
    let (lhs_step, rhs_step) = (d.m0 * d.k0, d.n0 * d.k0);
    for kk in 0..d.k {
        let l = &lhs[kk * lhs_step..(kk + 1) * lhs_step];
        let r = &rhs[kk * rhs_step..(kk + 1) * rhs_step];
        for kk0 in 0..d.k0 {
            for (i0, row) in acc.chunks_exact_mut(d.n0.max(1)).enumerate().take(d.m0) {
                let a = i32::from(l[i0 * d.k0 + kk0]);
                for (j0, o) in row.iter_mut().enumerate() {
                    let b = i32::from(r[j0 * d.k0 + kk0]);
                    *o = o.wrapping_add(a.wrapping_mul(b));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// pack / unpack
// ---------------------------------------------------------------------------

/// Loads element `index` (of `elem` bytes) as raw little-endian bits.
fn load_bits(buffer: &Buffer, index: i64, elem: u64) -> Result<u32> {
    Ok(if elem == 1 {
        buffer.load_i8u(index)? as u32
    } else {
        buffer.load_i32(index)? as u32
    })
}

fn store_bits(buffer: &Buffer, index: i64, elem: u64, bits: u32) -> Result<()> {
    if elem == 1 {
        buffer.store_i8(index, bits as i32)
    } else {
        buffer.store_i32(index, bits as i32)
    }
}

/// `pack` (`rIIIrIIIIIIIIIIi`): tiles a 2-D source into
/// `out_size0 x out_size1` tiles of `out_size2 x out_size3`, padding with
/// `padding_value` past the source's edges.
fn pack(args: &[Value]) -> Result<()> {
    let in_size0 = arg_i64(args, 8)?;
    let in_size1 = arg_i64(args, 9)?;
    let out_size = [
        arg_i64(args, 10)?,
        arg_i64(args, 11)?,
        arg_i64(args, 12)?,
        arg_i64(args, 13)?,
    ];
    let padding = arg_i64(args, 14)? as u64;
    let flags = arg_i32(args, 15)? as u32;
    let elem: u64 = match flags & PACK_TYPE_MASK {
        PACK_TYPE_F32F32 | PACK_TYPE_I32I32 => 4,
        PACK_TYPE_I8I8 => 1,
        _ => bail!(InvalidArgument, "unhandled flags"),
    };
    let out_tile = out_size[2].wrapping_mul(out_size[3]);
    let input = map_2d(
        args,
        0,
        "in",
        elem,
        shape_at(args, 1, in_size0, in_size1)?,
        false,
    )?;
    let out_shape = Shape2d {
        offset: arg_i64(args, 5)?,
        stride0: arg_i64(args, 6)?,
        stride1: 1,
        size0: out_size[0],
        size1: out_size[1].wrapping_mul(out_tile),
    };
    let out = map_2d(args, 4, "out", elem, out_shape, true)?;
    if out_size.contains(&0) {
        return Ok(());
    }
    if out_size.iter().any(|&s| s < 0) || in_size0 < 0 || in_size1 < 0 {
        bail!(InvalidArgument, "pack sizes must not be negative");
    }
    let (mut outer0, mut outer1) = (out_size[0], out_size[1]);
    let (mut tile0, mut tile1) = (out_size[2], out_size[3]);
    let (mut stride_a, mut stride_b) = (out_shape.stride0, out_tile);
    if flags & PACK_TRANSPOSE_OUTER != 0 {
        std::mem::swap(&mut outer0, &mut outer1);
        std::mem::swap(&mut stride_a, &mut stride_b);
    }
    let transpose_inner = flags & PACK_TRANSPOSE_INNER != 0;
    if transpose_inner {
        std::mem::swap(&mut tile0, &mut tile1);
    }
    let padding = if elem == 1 {
        padding & 0xff
    } else {
        padding & 0xffff_ffff
    } as u32;
    for a in 0..outer0 {
        for b in 0..outer1 {
            let tile_base = out
                .base
                .wrapping_add(a.wrapping_mul(stride_a))
                .wrapping_add(b.wrapping_mul(stride_b));
            for t0 in 0..tile0 {
                for t1 in 0..tile1 {
                    let (r, c) = (
                        a.wrapping_mul(tile0).wrapping_add(t0),
                        b.wrapping_mul(tile1).wrapping_add(t1),
                    );
                    let bits = if r < in_size0 && c < in_size1 {
                        load_bits(input.buffer, input.index(r as u64, c as u64), elem)?
                    } else {
                        padding
                    };
                    let inner = if transpose_inner {
                        t1.wrapping_mul(tile0).wrapping_add(t0)
                    } else {
                        t0.wrapping_mul(tile1).wrapping_add(t1)
                    };
                    store_bits(out.buffer, tile_base.wrapping_add(inner), elem, bits)?;
                }
            }
        }
    }
    Ok(())
}

/// `unpack` (`rIIIrIIIIIIIIIi`): the inverse of `pack`, dropping padding.
fn unpack(args: &[Value]) -> Result<()> {
    let in_size = [
        arg_i64(args, 8)?,
        arg_i64(args, 9)?,
        arg_i64(args, 10)?,
        arg_i64(args, 11)?,
    ];
    let out_size0 = arg_i64(args, 12)?;
    let out_size1 = arg_i64(args, 13)?;
    let flags = arg_i32(args, 14)? as u32;
    let elem: u64 = match flags & UNPACK_TYPE_MASK {
        UNPACK_TYPE_F32F32 | UNPACK_TYPE_I32I32 => 4,
        _ => bail!(InvalidArgument, "unhandled flags"),
    };
    let in_tile = in_size[2].wrapping_mul(in_size[3]);
    let in_shape = Shape2d {
        offset: arg_i64(args, 1)?,
        stride0: arg_i64(args, 2)?,
        stride1: 1,
        size0: in_size[0],
        size1: in_size[1].wrapping_mul(in_tile),
    };
    let input = map_2d(args, 0, "in", elem, in_shape, false)?;
    let out = map_2d(
        args,
        4,
        "out",
        elem,
        shape_at(args, 5, out_size0, out_size1)?,
        true,
    )?;
    if out_size0 == 0 || out_size1 == 0 {
        return Ok(());
    }
    let (mut tile0, mut tile1) = (in_size[2], in_size[3]);
    let (mut stride_a, mut stride_b) = (in_shape.stride0, in_tile);
    if flags & UNPACK_TRANSPOSE_OUTER != 0 {
        std::mem::swap(&mut stride_a, &mut stride_b);
    }
    let transpose_inner = flags & UNPACK_TRANSPOSE_INNER != 0;
    if transpose_inner {
        std::mem::swap(&mut tile0, &mut tile1);
    }
    if out_size0 < 0 || out_size1 < 0 || tile0 <= 0 || tile1 <= 0 {
        bail!(InvalidArgument, "unpack sizes must be positive");
    }
    for r in 0..out_size0 {
        for c in 0..out_size1 {
            let (a, t0) = (r / tile0, r % tile0);
            let (b, t1) = (c / tile1, c % tile1);
            let inner = if transpose_inner {
                t1.wrapping_mul(tile0).wrapping_add(t0)
            } else {
                t0.wrapping_mul(tile1).wrapping_add(t1)
            };
            let from = input
                .base
                .wrapping_add(a.wrapping_mul(stride_a))
                .wrapping_add(b.wrapping_mul(stride_b))
                .wrapping_add(inner);
            let bits = load_bits(input.buffer, from, elem)?;
            store_bits(out.buffer, out.index(r as u64, c as u64), elem, bits)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// query_tile_sizes.2d
// ---------------------------------------------------------------------------

/// Matmul tile sizes (M, K, N) upstream's ukernels pick on this CPU.
fn matmul_tile_sizes(operation: u32) -> (i64, i64, i64) {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2_fma = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c");
        let avx512 = avx2_fma
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512cd");
        match operation {
            QUERY_MATMUL_F32F32F32 if avx512 => return (16, 1, 16),
            QUERY_MATMUL_F32F32F32 if avx2_fma => return (8, 1, 8),
            QUERY_MATMUL_F32F32F32 => return (8, 1, 4),
            QUERY_MATMUL_I8I8I32 if avx512 && std::arch::is_x86_feature_detected!("avx512vnni") => {
                return (16, 2, 16)
            }
            QUERY_MATMUL_I8I8I32 if avx2_fma => return (8, 2, 8),
            QUERY_MATMUL_I8I8I32 => return (8, 2, 4),
            _ => {}
        }
    }
    let _ = operation;
    // The generic answer.
    (8, 4, 8)
}

/// `query_tile_sizes.2d` (`IIi_II`): the tile sizes of a matmul operand.
fn query_tile_sizes(args: &[Value], results: &mut Vec<Value>) -> Result<()> {
    let flags = arg_i32(args, 2)? as u32;
    let operation = flags & QUERY_OPERATION_MASK;
    if !(QUERY_MATMUL_F32F32F32..=QUERY_MATMUL_BF16BF16BF16).contains(&operation) {
        bail!(
            InvalidArgument,
            "query_tile_sizes.2d: unsupported operation flags 0x{flags:x}"
        );
    }
    let _ = QUERY_MATMUL_F16F16F32;
    let (m, k, n) = matmul_tile_sizes(operation);
    let (size0, size1) = match flags & QUERY_ROLE_MASK {
        QUERY_ROLE_LHS => (m, k),
        QUERY_ROLE_RHS => (n, k),
        QUERY_ROLE_RESULT => (m, n),
        _ => bail!(
            InvalidArgument,
            "query_tile_sizes.2d: unsupported operand role flags 0x{flags:x}"
        ),
    };
    results.push(Value::I64(size0));
    results.push(Value::I64(size1));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exports_are_sorted_and_unique() {
        assert_eq!(EXPORTS.len(), 32);
        for pair in EXPORTS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} >= {}", pair[0].0, pair[1].0);
        }
        let module = create();
        assert_eq!(module.name(), "vmvx");
        assert_eq!(module.exports().len(), 32);
    }
}
