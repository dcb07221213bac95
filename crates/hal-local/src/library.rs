//! The executable library ABI, version 0 (`runtime/src/iree/hal/local/executable_library.h`).
//!
//! The `#[repr(C)]` structs here mirror upstream's layout on 64-bit hosts
//! (sizes and offsets are asserted at compile time). Structures the runtime
//! *passes to* a kernel ([`EnvironmentV0`], [`DispatchStateV0`],
//! [`WorkgroupStateV0`]) are built in Rust and handed over by pointer.
//! Structures the runtime *reads from* a loaded library ([`LibraryV0`],
//! [`DispatchAttrsV0`], ...) are never dereferenced in place: the readers in
//! this module copy their bytes out of the image through [`ImageMemory`],
//! which checks that every address lies inside the mapped, read-only part of
//! the image, and decode fields at the asserted offsets.

use std::ffi::c_void;
use std::mem::{offset_of, size_of};

use iree_base::{bail, Result};

/// `IREE_HAL_EXECUTABLE_LIBRARY_VERSION_0_6`, the newest version (and the only
/// one the 3.13 compiler's query answers to).
pub const LIBRARY_VERSION_LATEST: u32 = 6;

/// The name of the symbol every embedded library exports.
pub const QUERY_SYMBOL_NAME: &str = "iree_hal_executable_library_query";

/// `IREE_HAL_EXECUTABLE_MAX_CONSTANT_COUNT`.
pub const MAX_CONSTANT_COUNT: usize = 64;
/// `IREE_HAL_EXECUTABLE_MAX_BINDING_COUNT`.
pub const MAX_BINDING_COUNT: usize = 64;
/// `IREE_HAL_PROCESSOR_DATA_CAPACITY_V0`.
pub const PROCESSOR_DATA_CAPACITY: usize = 8;
/// Bytes per page of `local_memory_pages`.
pub const LOCAL_MEMORY_PAGE_SIZE: usize = 4096;

/// `iree_hal_executable_library_header_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LibraryHeader {
    /// Library ABI version.
    pub version: u32,
    /// Library name (NUL-terminated).
    pub name: *const u8,
    /// Feature bits (`NONE` = 0).
    pub features: u32,
    /// Sanitizer the library was built with (NONE 0, ADDRESS 1, MEMORY 2,
    /// THREAD 3, UNDEFINED 4).
    pub sanitizer: i32,
}

/// `iree_hal_executable_import_table_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImportTableV0 {
    /// Number of imports.
    pub count: u32,
    /// Sorted import names; a leading `?` marks an optional import.
    pub symbols: *const *const u8,
}

/// `iree_hal_executable_export_table_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ExportTableV0 {
    /// Number of exports.
    pub count: u32,
    /// Dispatch functions, one per export.
    pub ptrs: *const DispatchFn,
    /// Optional dispatch attributes, one per export.
    pub attrs: *const DispatchAttrsV0,
    /// Optional per-export parameter descriptor lists.
    pub params: *const *const c_void,
    /// Optional occupancy information.
    pub occupancy: *const c_void,
    /// Optional export names.
    pub names: *const *const u8,
    /// Optional export tags.
    pub tags: *const *const u8,
    /// Optional parameter names.
    pub parameter_names: *const *const u8,
    /// Optional source locations.
    pub source_locations: *const c_void,
    /// Optional per-stage source locations.
    pub stage_locations: *const c_void,
}

/// `iree_hal_executable_constant_table_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ConstantTableV0 {
    /// Number of executable-level constants the environment must provide.
    pub count: u32,
}

/// `iree_hal_executable_source_file_table_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SourceFileTableV0 {
    /// Number of embedded source files.
    pub count: u32,
    /// The files.
    pub files: *const c_void,
}

/// `iree_hal_executable_library_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LibraryV0 {
    /// The library header.
    pub header: *const LibraryHeader,
    /// Imported functions.
    pub imports: ImportTableV0,
    /// Exported dispatch functions.
    pub exports: ExportTableV0,
    /// Executable-level constants.
    pub constants: ConstantTableV0,
    /// Embedded sources.
    pub sources: SourceFileTableV0,
}

/// `iree_hal_executable_dispatch_attrs_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DispatchAttrsV0 {
    /// Flags (SEQUENTIAL 1, WORKGROUP_SIZE_DYNAMIC 2).
    pub flags: u64,
    /// Workgroup-local memory, in 4096-byte pages.
    pub local_memory_pages: u16,
    /// Number of push constants.
    pub constant_count: u8,
    /// Number of bindings.
    pub binding_count: u8,
    /// Workgroup size X.
    pub workgroup_size_x: u32,
    /// Workgroup size Y.
    pub workgroup_size_y: u32,
    /// Workgroup size Z.
    pub workgroup_size_z: u16,
    /// Number of parameter descriptors.
    pub parameter_count: u16,
    /// Reserved.
    pub reserved_1: [u64; 5],
}

/// `iree_hal_executable_import_v0_t`.
pub type ImportFn = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void) -> i32;

/// `iree_hal_executable_import_thunk_v0_t`.
pub type ImportThunk =
    unsafe extern "C" fn(Option<ImportFn>, *mut c_void, *mut c_void, *mut c_void) -> i32;

/// `iree_hal_processor_v0_t`: architecture-specific CPU feature bits.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessorV0 {
    /// Feature words (`runtime/src/iree/schemas/cpu_data.h`).
    pub data: [u64; PROCESSOR_DATA_CAPACITY],
}

/// `iree_hal_executable_environment_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnvironmentV0 {
    /// Executable-level constants (`LibraryV0::constants.count` of them).
    pub constants: *const u32,
    /// Calls an import function.
    pub import_thunk: Option<ImportThunk>,
    /// Resolved imports (null for an unresolved optional import).
    pub import_funcs: *const Option<ImportFn>,
    /// Per-import contexts.
    pub import_contexts: *const *const c_void,
    /// Processor information.
    pub processor: ProcessorV0,
}

/// `iree_hal_executable_dispatch_state_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DispatchStateV0 {
    /// Workgroup size X.
    pub workgroup_size_x: u32,
    /// Workgroup size Y.
    pub workgroup_size_y: u32,
    /// Workgroup size Z.
    pub workgroup_size_z: u16,
    /// Number of entries in `constants`.
    pub constant_count: u16,
    /// Workgroup count X.
    pub workgroup_count_x: u32,
    /// Workgroup count Y.
    pub workgroup_count_y: u32,
    /// Workgroup count Z.
    pub workgroup_count_z: u16,
    /// Maximum number of workgroups that may run concurrently.
    pub max_concurrency: u8,
    /// Number of entries in `binding_ptrs` and `binding_lengths`.
    pub binding_count: u8,
    /// Push constants.
    pub constants: *const u32,
    /// Base pointers of the bindings.
    pub binding_ptrs: *const *mut c_void,
    /// Byte lengths of the bindings.
    pub binding_lengths: *const usize,
}

/// `iree_hal_executable_workgroup_state_v0_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WorkgroupStateV0 {
    /// Workgroup id X.
    pub workgroup_id_x: u32,
    /// Workgroup id Y.
    pub workgroup_id_y: u32,
    /// Workgroup id Z.
    pub workgroup_id_z: u16,
    /// Reserved.
    pub reserved: u16,
    /// Id of the processor running the workgroup.
    pub processor_id: u32,
    /// Workgroup-local scratch memory.
    pub local_memory: *mut c_void,
    /// Byte size of `local_memory`.
    pub local_memory_size: u32,
}

/// The workgroup ids of a run of linear workgroup indices (x fastest, then
/// y, then z) of a dispatch's grid, counted up without a division per
/// workgroup: `(index, [x, y], z)`.
#[derive(Clone, Debug)]
pub struct WorkgroupIds {
    next: u64,
    end: u64,
    id: [u32; 3],
    count: [u32; 2],
}

impl WorkgroupIds {
    /// The ids of `indices` in `dispatch`'s grid.
    pub fn new(dispatch: &DispatchStateV0, indices: std::ops::Range<u64>) -> WorkgroupIds {
        let count = [
            dispatch.workgroup_count_x.max(1),
            dispatch.workgroup_count_y.max(1),
        ];
        let plane = u64::from(count[0]) * u64::from(count[1]);
        let first = indices.start;
        // A run from the grid's start (every run of one worker) divides
        // nothing.
        let id = if first == 0 {
            [0; 3]
        } else {
            [
                (first % u64::from(count[0])) as u32,
                ((first / u64::from(count[0])) % u64::from(count[1])) as u32,
                (first / plane) as u32,
            ]
        };
        WorkgroupIds {
            next: first,
            end: indices.end,
            id,
            count,
        }
    }
}

impl WorkgroupIds {
    /// The next workgroup's x and y.
    fn id_xy(&self) -> [u32; 2] {
        [self.id[0], self.id[1]]
    }

    /// The next workgroup's z.
    fn id_z(&self) -> u16 {
        self.id[2] as u16
    }

    /// Moves past `n` workgroups of the current row of x (at most the rest
    /// of it), carrying into y and z at the row's end.
    #[inline(always)]
    fn advance_in_row(&mut self, n: u64) {
        self.next += n;
        self.id[0] += n as u32;
        if self.id[0] == self.count[0] {
            self.id[0] = 0;
            self.id[1] += 1;
            if self.id[1] == self.count[1] {
                self.id[1] = 0;
                self.id[2] += 1;
            }
        }
    }
}

impl Iterator for WorkgroupIds {
    type Item = (u64, [u32; 2], u16);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let item = (self.next, [self.id[0], self.id[1]], self.id[2] as u16);
        self.advance_in_row(1);
        Some(item)
    }
}

/// Runs `run` on the state of each workgroup of linear indices `indices`
/// (x fastest) of `dispatch`'s grid in order, as `processor_id` with
/// `local_memory`; stops at the first non-zero result and returns it with
/// its workgroup's index.
pub fn run_workgroup_range(
    dispatch: &DispatchStateV0,
    indices: std::ops::Range<u64>,
    processor_id: u32,
    local_memory: &mut [u8],
    mut run: impl FnMut(&WorkgroupStateV0) -> Result<i32>,
) -> Result<Option<(u64, i32)>> {
    let mut ids = WorkgroupIds::new(dispatch, indices);
    // One state for the whole run: between workgroups only the ids change
    // (the kernel reads it through a const pointer).
    let mut workgroup = WorkgroupStateV0::new(ids.id_xy(), ids.id_z(), processor_id, local_memory);
    if ids.next >= ids.end {
        return Ok(None);
    }
    loop {
        // The rest of this row of x, without the carry checks per workgroup.
        let row_end = ids.end.min(ids.next + u64::from(ids.count[0] - ids.id[0]));
        workgroup.workgroup_id_y = ids.id[1];
        workgroup.workgroup_id_z = ids.id[2] as u16;
        let mut x = ids.id[0];
        // Counting x beside the index compiles to fewer instructions a
        // workgroup than deriving either from the other (callgrind).
        #[allow(clippy::explicit_counter_loop)]
        for index in ids.next..row_end {
            workgroup.workgroup_id_x = x;
            match run(&workgroup)? {
                0 => {}
                code => return Ok(Some((index, code))),
            }
            // At most the row's count: no overflow.
            x += 1;
        }
        if row_end == ids.end {
            return Ok(None);
        }
        ids.advance_in_row(row_end - ids.next);
    }
}

impl DispatchStateV0 {
    /// The state for running `export` over a grid of `workgroup_count`
    /// (x, y and the 16-bit z), pointing at `constants` and the binding
    /// pointer/length arrays. Building it dereferences nothing; the caller
    /// keeps those slices alive while the state is in use.
    pub fn new(
        export: &ExportInfo,
        workgroup_count: [u32; 2],
        workgroup_count_z: u16,
        max_concurrency: u8,
        constants: &[u32],
        binding_ptrs: &[*mut c_void],
        binding_lengths: &[usize],
    ) -> DispatchStateV0 {
        DispatchStateV0 {
            workgroup_size_x: export.attrs.workgroup_size_x,
            workgroup_size_y: export.attrs.workgroup_size_y,
            workgroup_size_z: export.attrs.workgroup_size_z,
            constant_count: constants.len() as u16,
            workgroup_count_x: workgroup_count[0],
            workgroup_count_y: workgroup_count[1],
            workgroup_count_z,
            max_concurrency,
            binding_count: binding_ptrs.len() as u8,
            constants: constants.as_ptr(),
            binding_ptrs: binding_ptrs.as_ptr(),
            binding_lengths: binding_lengths.as_ptr(),
        }
    }
}

impl WorkgroupStateV0 {
    /// The state of workgroup (`x`, `y`, `z`) run by `processor_id` with
    /// `local_memory` as its scratch (null when empty). Building it
    /// dereferences nothing; the caller keeps `local_memory` alive.
    pub fn new(
        id: [u32; 2],
        id_z: u16,
        processor_id: u32,
        local_memory: &mut [u8],
    ) -> WorkgroupStateV0 {
        WorkgroupStateV0 {
            workgroup_id_x: id[0],
            workgroup_id_y: id[1],
            workgroup_id_z: id_z,
            reserved: 0,
            processor_id,
            local_memory: if local_memory.is_empty() {
                std::ptr::null_mut()
            } else {
                local_memory.as_mut_ptr().cast()
            },
            local_memory_size: local_memory.len() as u32,
        }
    }
}

/// A dispatch function: returns 0 on success.
pub type DispatchFn = unsafe extern "C" fn(
    *const EnvironmentV0,
    *const DispatchStateV0,
    *const WorkgroupStateV0,
) -> i32;

/// `iree_hal_executable_library_query_fn_t`.
pub type QueryFn = unsafe extern "C" fn(u32, *const EnvironmentV0) -> *const *const LibraryHeader;

// Layout checks against upstream's documented 64-bit layout.
const _: () = {
    assert!(
        size_of::<usize>() == 8,
        "the embedded ELF ABI is implemented for 64-bit hosts"
    );
    assert!(size_of::<LibraryHeader>() == 24);
    assert!(offset_of!(LibraryHeader, name) == 8);
    assert!(offset_of!(LibraryHeader, features) == 16);
    assert!(offset_of!(LibraryHeader, sanitizer) == 20);
    assert!(size_of::<ImportTableV0>() == 16);
    assert!(size_of::<ExportTableV0>() == 80);
    assert!(offset_of!(ExportTableV0, ptrs) == 8);
    assert!(offset_of!(ExportTableV0, attrs) == 16);
    assert!(offset_of!(ExportTableV0, names) == 40);
    assert!(size_of::<LibraryV0>() == 128);
    assert!(offset_of!(LibraryV0, imports) == 8);
    assert!(offset_of!(LibraryV0, exports) == 24);
    assert!(offset_of!(LibraryV0, constants) == 104);
    assert!(offset_of!(LibraryV0, sources) == 112);
    assert!(size_of::<DispatchAttrsV0>() == 64);
    assert!(offset_of!(DispatchAttrsV0, local_memory_pages) == 8);
    assert!(offset_of!(DispatchAttrsV0, constant_count) == 10);
    assert!(offset_of!(DispatchAttrsV0, binding_count) == 11);
    assert!(offset_of!(DispatchAttrsV0, workgroup_size_x) == 12);
    assert!(offset_of!(DispatchAttrsV0, workgroup_size_y) == 16);
    assert!(offset_of!(DispatchAttrsV0, workgroup_size_z) == 20);
    assert!(offset_of!(DispatchAttrsV0, parameter_count) == 22);
    assert!(offset_of!(DispatchAttrsV0, reserved_1) == 24);
    assert!(size_of::<ProcessorV0>() == 64);
    assert!(size_of::<EnvironmentV0>() == 96);
    assert!(offset_of!(EnvironmentV0, import_thunk) == 8);
    assert!(offset_of!(EnvironmentV0, import_funcs) == 16);
    assert!(offset_of!(EnvironmentV0, import_contexts) == 24);
    assert!(offset_of!(EnvironmentV0, processor) == 32);
    assert!(size_of::<DispatchStateV0>() == 48);
    assert!(offset_of!(DispatchStateV0, workgroup_size_y) == 4);
    assert!(offset_of!(DispatchStateV0, workgroup_size_z) == 8);
    assert!(offset_of!(DispatchStateV0, constant_count) == 10);
    assert!(offset_of!(DispatchStateV0, workgroup_count_x) == 12);
    assert!(offset_of!(DispatchStateV0, workgroup_count_y) == 16);
    assert!(offset_of!(DispatchStateV0, workgroup_count_z) == 20);
    assert!(offset_of!(DispatchStateV0, max_concurrency) == 22);
    assert!(offset_of!(DispatchStateV0, binding_count) == 23);
    assert!(offset_of!(DispatchStateV0, constants) == 24);
    assert!(offset_of!(DispatchStateV0, binding_ptrs) == 32);
    assert!(offset_of!(DispatchStateV0, binding_lengths) == 40);
    assert!(size_of::<WorkgroupStateV0>() == 32);
    assert!(offset_of!(WorkgroupStateV0, workgroup_id_y) == 4);
    assert!(offset_of!(WorkgroupStateV0, workgroup_id_z) == 8);
    assert!(offset_of!(WorkgroupStateV0, reserved) == 10);
    assert!(offset_of!(WorkgroupStateV0, processor_id) == 12);
    assert!(offset_of!(WorkgroupStateV0, local_memory) == 16);
    assert!(offset_of!(WorkgroupStateV0, local_memory_size) == 24);
};

/// Read access to a loaded image, by absolute address.
///
/// Implementations fail (never panic) when a range is not entirely inside
/// the image's readable, immutable memory.
pub trait ImageMemory {
    /// Copies `out.len()` bytes starting at `address` into `out`.
    fn read(&self, address: u64, out: &mut [u8]) -> Result<()>;
    /// Whether `address` lies in the image's executable memory.
    fn is_code(&self, address: u64) -> bool;
}

/// Longest C string the readers accept (names, paths).
const MAX_STRING_LENGTH: usize = 4096;
/// Most exports or imports the readers accept.
const MAX_TABLE_COUNT: u32 = 1 << 16;

fn read_array<const N: usize>(mem: &dyn ImageMemory, address: u64) -> Result<[u8; N]> {
    let mut out = [0u8; N];
    mem.read(address, &mut out)?;
    Ok(out)
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap_or([0; 4]))
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

fn read_u64(mem: &dyn ImageMemory, address: u64) -> Result<u64> {
    Ok(u64::from_le_bytes(read_array::<8>(mem, address)?))
}

/// Reads the `index`th pointer of the pointer array at `base`.
fn read_ptr_at(mem: &dyn ImageMemory, base: u64, index: u32) -> Result<u64> {
    let Some(address) = base.checked_add(u64::from(index) * 8) else {
        bail!(
            InvalidArgument,
            "pointer table at 0x{base:x} overflows the address space"
        );
    };
    read_u64(mem, address)
}

/// Reads a NUL-terminated string at `address` (at most 4096 bytes).
pub fn read_c_string(mem: &dyn ImageMemory, address: u64) -> Result<String> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 64];
    let mut at = address;
    while bytes.len() < MAX_STRING_LENGTH {
        // Read byte-wise near the end of readable memory: a short tail may
        // end a valid string right before unreadable memory.
        let n = if mem.read(at, &mut chunk).is_ok() {
            chunk.len()
        } else {
            mem.read(at, &mut chunk[..1])?;
            1
        };
        if let Some(end) = chunk[..n].iter().position(|&b| b == 0) {
            bytes.extend_from_slice(&chunk[..end]);
            return Ok(String::from_utf8_lossy(&bytes).into_owned());
        }
        bytes.extend_from_slice(&chunk[..n]);
        let Some(next) = at.checked_add(n as u64) else {
            bail!(
                InvalidArgument,
                "string at 0x{address:x} runs off the address space"
            );
        };
        at = next;
    }
    bail!(
        InvalidArgument,
        "string at 0x{address:x} is longer than {MAX_STRING_LENGTH} bytes"
    )
}

/// What the runtime needs to know about one export, copied out of the image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportInfo {
    /// Export name (`"export{ordinal}"`-style names are not synthesized: an
    /// unnamed export has an empty name).
    pub name: String,
    /// Dispatch attributes (all zero when the library has none).
    pub attrs: DispatchAttrsV0,
    /// Absolute address of the dispatch function (checked to be code).
    pub(crate) function: u64,
}

/// Export `ordinal` of `exports`, or OUT_OF_RANGE: the one lookup every
/// dispatch path makes.
pub fn export_at(exports: &[ExportInfo], ordinal: usize) -> Result<&ExportInfo> {
    match exports.get(ordinal) {
        Some(export) => Ok(export),
        None => bail!(
            OutOfRange,
            "export ordinal {ordinal} out of range; library has {} exports",
            exports.len()
        ),
    }
}

impl ExportInfo {
    /// Checks a dispatch's constant and binding counts against the export's
    /// ([`iree_hal::FunctionInfo::check_dispatch_counts`], upstream's
    /// "constant/binding count mismatch"): the check that keeps a kernel
    /// inside the arrays it is handed, made here once for every dispatch path.
    pub fn check_dispatch_counts(&self, constants: usize, bindings: usize) -> Result<()> {
        self.function_info()
            .check_dispatch_counts(constants, bindings)
    }

    /// An export described by `name` and `attrs`, for executables that are
    /// not ELF libraries (VMVX modules).
    pub fn new(name: impl Into<String>, attrs: DispatchAttrsV0) -> ExportInfo {
        ExportInfo {
            name: name.into(),
            attrs,
            function: 0,
        }
    }

    /// What the export declares, as upstream's local executables report it
    /// (`iree_hal_executable_library_export_info`): the sequential and
    /// dynamic-workgroup-size flags, counts and workgroup size.
    pub fn function_info(&self) -> iree_hal::FunctionInfo {
        iree_hal::FunctionInfo {
            flags: self.attrs.flags & 0b11,
            workgroup_size: self.workgroup_size(),
            constant_count: u16::from(self.attrs.constant_count),
            binding_count: u16::from(self.attrs.binding_count),
            parameter_count: self.attrs.parameter_count,
        }
    }

    /// Workgroup size (x, y, z).
    pub fn workgroup_size(&self) -> [u32; 3] {
        [
            self.attrs.workgroup_size_x,
            self.attrs.workgroup_size_y,
            u32::from(self.attrs.workgroup_size_z),
        ]
    }
    /// Number of bindings the dispatch function reads.
    pub fn binding_count(&self) -> usize {
        usize::from(self.attrs.binding_count)
    }
    /// Number of push constants the dispatch function reads.
    pub fn constant_count(&self) -> usize {
        usize::from(self.attrs.constant_count)
    }
    /// Workgroup-local memory, in 4096-byte pages.
    pub fn local_memory_pages(&self) -> usize {
        usize::from(self.attrs.local_memory_pages)
    }
    /// Workgroup-local memory in bytes (what each worker provides).
    pub fn local_memory_size(&self) -> usize {
        self.local_memory_pages() * LOCAL_MEMORY_PAGE_SIZE
    }
}

/// The library's description, copied out of the image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryInfo {
    /// Header version.
    pub version: u32,
    /// Library name.
    pub name: String,
    /// Header feature bits.
    pub features: u32,
    /// Import names (a leading `?` marks an optional import).
    pub imports: Vec<String>,
    /// Exports, in ordinal order.
    pub exports: Vec<ExportInfo>,
    /// Number of executable-level constants.
    pub constant_count: u32,
}

fn decode_attrs(b: &[u8; 64]) -> DispatchAttrsV0 {
    let mut reserved_1 = [0u64; 5];
    for (i, r) in reserved_1.iter_mut().enumerate() {
        *r = u64_at(b, offset_of!(DispatchAttrsV0, reserved_1) + i * 8);
    }
    DispatchAttrsV0 {
        flags: u64_at(b, offset_of!(DispatchAttrsV0, flags)),
        local_memory_pages: u16_at(b, offset_of!(DispatchAttrsV0, local_memory_pages)),
        constant_count: b[offset_of!(DispatchAttrsV0, constant_count)],
        binding_count: b[offset_of!(DispatchAttrsV0, binding_count)],
        workgroup_size_x: u32_at(b, offset_of!(DispatchAttrsV0, workgroup_size_x)),
        workgroup_size_y: u32_at(b, offset_of!(DispatchAttrsV0, workgroup_size_y)),
        workgroup_size_z: u16_at(b, offset_of!(DispatchAttrsV0, workgroup_size_z)),
        parameter_count: u16_at(b, offset_of!(DispatchAttrsV0, parameter_count)),
        reserved_1,
    }
}

/// Reads and validates the library that `query` returned (`library` is the
/// address of its `LibraryV0`, which begins with the header pointer).
///
/// Checks, as upstream's loader does: the header version is at most
/// [`LIBRARY_VERSION_LATEST`] and the library was built without a sanitizer.
/// Checks beyond upstream: every pointer followed lies inside the image's
/// read-only memory, every dispatch function inside its code, and binding and
/// constant counts are within the ABI limits.
pub fn read_library(mem: &dyn ImageMemory, library: u64) -> Result<LibraryInfo> {
    let lib = read_array::<{ size_of::<LibraryV0>() }>(mem, library)?;
    let header_ptr = u64_at(&lib, offset_of!(LibraryV0, header));
    let header = read_array::<{ size_of::<LibraryHeader>() }>(mem, header_ptr)?;
    let version = u32_at(&header, offset_of!(LibraryHeader, version));
    if version > LIBRARY_VERSION_LATEST {
        bail!(
            FailedPrecondition,
            "executable library version {version} is newer than the runtime supports ({LIBRARY_VERSION_LATEST})"
        );
    }
    let sanitizer = u32_at(&header, offset_of!(LibraryHeader, sanitizer));
    if sanitizer != 0 {
        bail!(
            Unavailable,
            "executable library is compiled with sanitizer kind {sanitizer}, which the embedded ELF loader does not support"
        );
    }
    let name = read_c_string(mem, u64_at(&header, offset_of!(LibraryHeader, name)))?;
    let features = u32_at(&header, offset_of!(LibraryHeader, features));

    let imports_off = offset_of!(LibraryV0, imports);
    let import_count = u32_at(&lib, imports_off + offset_of!(ImportTableV0, count));
    let import_symbols = u64_at(&lib, imports_off + offset_of!(ImportTableV0, symbols));
    if import_count > MAX_TABLE_COUNT {
        bail!(
            InvalidArgument,
            "executable library declares {import_count} imports"
        );
    }
    let mut imports = Vec::new();
    for i in 0..import_count {
        imports.push(read_c_string(mem, read_ptr_at(mem, import_symbols, i)?)?);
    }

    let ex = offset_of!(LibraryV0, exports);
    let count = u32_at(&lib, ex + offset_of!(ExportTableV0, count));
    if count > MAX_TABLE_COUNT {
        bail!(
            InvalidArgument,
            "executable library declares {count} exports"
        );
    }
    let ptrs = u64_at(&lib, ex + offset_of!(ExportTableV0, ptrs));
    let attrs_base = u64_at(&lib, ex + offset_of!(ExportTableV0, attrs));
    let names = u64_at(&lib, ex + offset_of!(ExportTableV0, names));
    let mut exports = Vec::new();
    for i in 0..count {
        let function = read_ptr_at(mem, ptrs, i)?;
        if !mem.is_code(function) {
            bail!(
                InvalidArgument,
                "export {i} dispatch function 0x{function:x} is not inside the image's code"
            );
        }
        let attrs = if attrs_base == 0 {
            DispatchAttrsV0::default()
        } else {
            let Some(at) = attrs_base.checked_add(u64::from(i) * 64) else {
                bail!(
                    InvalidArgument,
                    "export attribute table overflows the address space"
                );
            };
            decode_attrs(&read_array::<64>(mem, at)?)
        };
        if usize::from(attrs.binding_count) > MAX_BINDING_COUNT
            || usize::from(attrs.constant_count) > MAX_CONSTANT_COUNT
        {
            bail!(
                InvalidArgument,
                "export {i} declares {} bindings and {} constants (limits {MAX_BINDING_COUNT} and {MAX_CONSTANT_COUNT})",
                attrs.binding_count,
                attrs.constant_count
            );
        }
        let name = if names == 0 {
            String::new()
        } else {
            read_c_string(mem, read_ptr_at(mem, names, i)?)?
        };
        exports.push(ExportInfo {
            name,
            attrs,
            function,
        });
    }
    let constant_count = u32_at(
        &lib,
        offset_of!(LibraryV0, constants) + offset_of!(ConstantTableV0, count),
    );
    if constant_count > MAX_TABLE_COUNT {
        bail!(
            InvalidArgument,
            "executable library declares {constant_count} constants"
        );
    }
    Ok(LibraryInfo {
        version,
        name,
        features,
        imports,
        exports,
        constant_count,
    })
}

/// Checks that a caller provided exactly the executable-level constants a
/// library declares (its `constants.count`), as every loader of the library
/// ABI does before handing the values to the library's environment.
///
/// A mismatch fails with FAILED_PRECONDITION, worded as upstream's
/// `iree_hal_executable_library_verify`.
pub fn check_executable_constant_count(required: u32, provided: usize) -> Result<()> {
    if usize::try_from(required).ok() != Some(provided) {
        bail!(
            FailedPrecondition,
            "executable requires {required} constants but caller provided {provided}; must match"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use iree_base::StatusCode;

    #[test]
    fn workgroup_ids_count_up_as_division_would() {
        let export = ExportInfo::new("e", DispatchAttrsV0::default());
        for (count, z) in [([1, 1], 1), ([5, 3], 3), ([7, 1], 4), ([1, 6], 2)] {
            let state = DispatchStateV0::new(&export, count, z, 1, &[], &[], &[]);
            let total = u64::from(count[0]) * u64::from(count[1]) * u64::from(z);
            for start in 0..total {
                for end in start..=total {
                    let ids: Vec<_> = WorkgroupIds::new(&state, start..end).collect();
                    let expected: Vec<_> = (start..end)
                        .map(|i| {
                            let (cx, cy) = (u64::from(count[0]), u64::from(count[1]));
                            (
                                i,
                                [(i % cx) as u32, ((i / cx) % cy) as u32],
                                (i / (cx * cy)) as u16,
                            )
                        })
                        .collect();
                    assert_eq!(ids, expected, "{count:?}x{z} {start}..{end}");
                    // The run visits the same workgroups in the same order,
                    // each state fully set, and stops at the first failure.
                    let mut seen = Vec::new();
                    let stopped = run_workgroup_range(&state, start..end, 3, &mut [], |w| {
                        assert_eq!((w.processor_id, w.reserved), (3, 0));
                        assert!(w.local_memory.is_null() && w.local_memory_size == 0);
                        let index = expected[seen.len()].0;
                        seen.push((
                            index,
                            [w.workgroup_id_x, w.workgroup_id_y],
                            w.workgroup_id_z,
                        ));
                        Ok(i32::from(index + 1 == end && end - start > 1))
                    })
                    .unwrap();
                    assert_eq!(seen, expected, "run {count:?}x{z} {start}..{end}");
                    let failed = (end - start > 1).then(|| (end - 1, 1));
                    assert_eq!(stopped, failed, "{count:?}x{z} {start}..{end}");
                }
            }
        }
    }

    /// A flat memory at a fixed base, everything readable, [code] executable.
    struct Flat {
        base: u64,
        bytes: Vec<u8>,
        code: std::ops::Range<u64>,
    }
    impl ImageMemory for Flat {
        fn read(&self, address: u64, out: &mut [u8]) -> Result<()> {
            let off = address.checked_sub(self.base).map(|o| o as usize);
            match off.and_then(|o| self.bytes.get(o..o.checked_add(out.len())?)) {
                Some(b) => {
                    out.copy_from_slice(b);
                    Ok(())
                }
                None => bail!(OutOfRange, "bad read"),
            }
        }
        fn is_code(&self, address: u64) -> bool {
            self.code.contains(&address)
        }
    }

    fn put(bytes: &mut [u8], off: usize, v: &[u8]) {
        bytes[off..off + v.len()].copy_from_slice(v);
    }

    fn sample() -> Flat {
        let base = 0x10000;
        let mut b = vec![0u8; 1024];
        // library at 0, header at 200, name at 300, ptrs at 400, attrs at 500,
        // names at 600, export name at 700, code at 900.
        put(&mut b, 0, &(base + 200u64).to_le_bytes());
        put(&mut b, 24, &1u32.to_le_bytes());
        put(&mut b, 32, &(base + 400u64).to_le_bytes());
        put(&mut b, 40, &(base + 500u64).to_le_bytes());
        put(&mut b, 64, &(base + 600u64).to_le_bytes());
        put(&mut b, 200, &6u32.to_le_bytes());
        put(&mut b, 208, &(base + 300u64).to_le_bytes());
        put(&mut b, 300, b"lib\0");
        put(&mut b, 400, &(base + 900u64).to_le_bytes());
        put(&mut b, 500 + 11, &[3]);
        put(&mut b, 500 + 12, &1u32.to_le_bytes());
        put(&mut b, 600, &(base + 700u64).to_le_bytes());
        put(&mut b, 700, b"fn0\0");
        Flat {
            base,
            bytes: b,
            code: base + 900..base + 1000,
        }
    }

    #[test]
    fn reads_a_library() {
        let m = sample();
        let info = read_library(&m, m.base).unwrap();
        assert_eq!(info.name, "lib");
        assert_eq!(info.exports.len(), 1);
        assert_eq!(info.exports[0].name, "fn0");
        assert_eq!(info.exports[0].binding_count(), 3);
        assert_eq!(info.exports[0].workgroup_size(), [1, 0, 0]);
    }

    #[test]
    fn rejects_pointers_outside_the_image() {
        let mut m = sample();
        put(&mut m.bytes, 400, &0xdead_0000u64.to_le_bytes());
        assert_eq!(
            read_library(&m, m.base).unwrap_err().code(),
            StatusCode::InvalidArgument
        );
        let mut m = sample();
        put(&mut m.bytes, 208, &u64::MAX.to_le_bytes());
        assert!(read_library(&m, m.base).is_err());
        let mut m = sample();
        put(&mut m.bytes, 300, &[b'x'; 100]);
        put(&mut m.bytes, 700, &[b'x'; 324]);
        assert!(read_library(&m, m.base).is_err());
        let m = sample();
        assert!(read_library(&m, m.base + 1000).is_err());
    }

    #[test]
    fn strings_may_end_at_the_end_of_readable_memory() {
        let mut m = sample();
        let n = m.bytes.len();
        put(&mut m.bytes, n - 4, b"abc\0");
        assert_eq!(read_c_string(&m, m.base + n as u64 - 4).unwrap(), "abc");
        put(&mut m.bytes, n - 4, b"abcd");
        assert_eq!(
            read_c_string(&m, m.base + n as u64 - 4).unwrap_err().code(),
            StatusCode::OutOfRange
        );
        assert!(read_c_string(&m, u64::MAX - 2).is_err());
    }

    #[test]
    fn rejects_sanitizers_and_newer_versions() {
        let mut m = sample();
        put(&mut m.bytes, 220, &1u32.to_le_bytes());
        assert_eq!(
            read_library(&m, m.base).unwrap_err().code(),
            StatusCode::Unavailable
        );
        let mut m = sample();
        put(&mut m.bytes, 200, &7u32.to_le_bytes());
        assert_eq!(
            read_library(&m, m.base).unwrap_err().code(),
            StatusCode::FailedPrecondition
        );
    }
}
