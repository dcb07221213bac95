//! Running an executable export over a whole workgroup grid with HAL buffers
//! as bindings: what a local device does for `dispatch` commands.
//!
//! Every allocation a binding touches is held under a device-access guard
//! for the whole dispatch, so no host mapping (Rust code) can observe the
//! memory while kernels write it; bindings sharing an allocation share one
//! guard. Ranges are checked against the buffers; what a kernel does inside
//! its bindings is trusted, as upstream trusts it.

use std::ffi::c_void;

use iree_base::{bail, Result};
use iree_hal::buffer::{calculate_range, DeviceAccess};
use iree_hal::Buffer;

use crate::library::{self, DispatchStateV0, WorkgroupStateV0};
use crate::EmbeddedElfLibrary;

/// One binding of a dispatch: a byte range of a buffer.
#[derive(Clone, Copy, Debug)]
pub struct BufferBinding<'a> {
    /// The buffer.
    pub buffer: &'a Buffer,
    /// Offset within the buffer.
    pub offset: u64,
    /// Length in bytes ([`iree_hal::WHOLE_BUFFER`] for the rest of the buffer).
    pub length: u64,
}

/// Runs export `ordinal` of `library` for every workgroup of
/// `workgroup_count`, in x-fastest order on the calling thread.
pub fn dispatch_grid(
    library: &EmbeddedElfLibrary,
    ordinal: usize,
    constants: &[u32],
    bindings: &[BufferBinding<'_>],
    workgroup_count: [u32; 3],
) -> Result<()> {
    let Some(export) = library.exports().get(ordinal) else {
        bail!(
            OutOfRange,
            "export ordinal {ordinal} out of range; library has {} exports",
            library.exports().len()
        );
    };
    if constants.len() != export.constant_count() || bindings.len() != export.binding_count() {
        bail!(
            InvalidArgument,
            "export '{}' takes {} constants and {} bindings; {} and {} given",
            export.name,
            export.constant_count(),
            export.binding_count(),
            constants.len(),
            bindings.len()
        );
    }
    let Ok(count_z) = u16::try_from(workgroup_count[2]) else {
        bail!(
            OutOfRange,
            "workgroup count z {} exceeds 65535",
            workgroup_count[2]
        );
    };
    if workgroup_count.contains(&0) {
        return Ok(());
    }

    // One device-access guard per distinct allocation, held until we return.
    let mut guards: Vec<(&Buffer, DeviceAccess<'_>)> = Vec::new();
    let mut binding_ptrs: Vec<*mut c_void> = Vec::with_capacity(bindings.len());
    let mut binding_lengths: Vec<usize> = Vec::with_capacity(bindings.len());
    for binding in bindings {
        let length = calculate_range(binding.buffer.byte_length(), binding.offset, binding.length)?;
        let index = match guards
            .iter()
            .position(|(b, _)| Buffer::same_allocation(b, binding.buffer))
        {
            Some(index) => index,
            None => {
                guards.push((binding.buffer, binding.buffer.begin_device_access()?));
                guards.len() - 1
            }
        };
        let start = binding.buffer.byte_offset() + binding.offset;
        // In bounds: `calculate_range` checked `offset + length` against the
        // buffer, which lies inside its allocation.
        let ptr = guards[index].1.base_ptr().wrapping_add(start as usize);
        binding_ptrs.push(ptr.cast());
        binding_lengths.push(length as usize);
    }

    let mut local_memory = vec![0u8; export.local_memory_pages() * library::LOCAL_MEMORY_PAGE_SIZE];
    let state = DispatchStateV0 {
        workgroup_size_x: export.attrs.workgroup_size_x,
        workgroup_size_y: export.attrs.workgroup_size_y,
        workgroup_size_z: export.attrs.workgroup_size_z,
        constant_count: constants.len() as u16,
        workgroup_count_x: workgroup_count[0],
        workgroup_count_y: workgroup_count[1],
        workgroup_count_z: count_z,
        max_concurrency: 1,
        binding_count: bindings.len() as u8,
        constants: constants.as_ptr(),
        binding_ptrs: binding_ptrs.as_ptr(),
        binding_lengths: binding_lengths.as_ptr(),
    };
    let _fpu = FlushDenormals::enter();
    for z in 0..count_z {
        for y in 0..workgroup_count[1] {
            for x in 0..workgroup_count[0] {
                let workgroup = WorkgroupStateV0 {
                    workgroup_id_x: x,
                    workgroup_id_y: y,
                    workgroup_id_z: z,
                    reserved: 0,
                    processor_id: 0,
                    local_memory: if local_memory.is_empty() {
                        std::ptr::null_mut()
                    } else {
                        local_memory.as_mut_ptr().cast()
                    },
                    local_memory_size: local_memory.len() as u32,
                };
                // SAFETY: constant and binding counts match the export
                // (checked above); every binding pointer/length pair lies
                // inside an allocation held under a device-access guard for
                // the whole dispatch, so no Rust code reads or writes it
                // concurrently; constants and local memory are live for the
                // call. The kernel's own accesses within its bindings are
                // trusted, as documented in the crate.
                let result = unsafe { library.dispatch(ordinal, &state, &workgroup)? };
                if result != 0 {
                    bail!(
                        Internal,
                        "dispatch '{}' workgroup [{x}, {y}, {z}] failed with result {result}",
                        export.name
                    );
                }
            }
        }
    }
    drop(guards);
    Ok(())
}

/// Kernels run with denormals flushed to zero (inputs and results), as
/// upstream's local devices run them; the previous mode is restored on drop.
struct FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

impl FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    fn enter() -> FlushDenormals {
        const FTZ: u32 = 1 << 15;
        const DAZ: u32 = 1 << 6;
        let mut saved = 0u32;
        // SAFETY: `stmxcsr`/`ldmxcsr` read and write this thread's SSE control
        // register; setting FTZ and DAZ changes only how denormals round, and
        // `drop` restores the saved value.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut saved, options(nostack));
            let flushed = saved | FTZ | DAZ;
            std::arch::asm!("ldmxcsr [{}]", in(reg) &flushed, options(nostack));
        }
        FlushDenormals { saved }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn enter() -> FlushDenormals {
        FlushDenormals {}
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: restores the control register value saved in `enter`.
        unsafe {
            std::arch::asm!("ldmxcsr [{}]", in(reg) &self.saved, options(nostack));
        }
    }
}

impl iree_hal::Executable for EmbeddedElfLibrary {
    fn export_count(&self) -> usize {
        self.exports().len()
    }

    fn export_name(&self, ordinal: usize) -> Option<&str> {
        self.exports().get(ordinal).map(|e| e.name.as_str())
    }

    fn dispatch(
        &self,
        ordinal: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: &[iree_hal::DispatchBinding],
    ) -> Result<()> {
        let bindings: Vec<BufferBinding<'_>> = bindings
            .iter()
            .map(|b| BufferBinding {
                buffer: &b.buffer,
                offset: b.offset,
                length: b.length,
            })
            .collect();
        dispatch_grid(self, ordinal, constants, &bindings, workgroup_count)
    }
}
