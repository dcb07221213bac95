//! Kernel parameters as upstream's CUDA and HIP command buffers pack them
//! (`stream_command_buffer.c` / `graph_command_buffer.c`): one
//! pointer-sized slot per binding holding the buffer's device address
//! (allocation base + buffer offset + binding offset), then one slot per
//! 32-bit constant holding the value in its low four bytes; the launch gets
//! an array of pointers to those slots (`kernelParams`).

use std::ffi::c_void;

use iree_base::{Result, Status, StatusCode};

use crate::executable::ExportInfo;

/// Packed kernel arguments for one launch.
pub struct KernelParams {
    /// One 8-byte slot per parameter; boxed so the addresses in `pointers`
    /// stay put.
    slots: Box<[u64]>,
    /// `kernelParams`: the address of each slot.
    pointers: Box<[*mut c_void]>,
}

impl KernelParams {
    /// Packs `bindings` (device addresses) and `constants` for `export`.
    /// Exactly the export's binding and constant counts are passed; fewer
    /// than it declares is INVALID_ARGUMENT (upstream would read past the
    /// caller's arrays).
    pub fn pack(export: &ExportInfo, bindings: &[u64], constants: &[u32]) -> Result<KernelParams> {
        let binding_count = export.binding_count();
        let constant_count = export.constant_count as usize;
        if bindings.len() < binding_count || constants.len() < constant_count {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "kernel `{}` takes {binding_count} bindings and {constant_count} constants; the dispatch provides {} and {}",
                    export.name,
                    bindings.len(),
                    constants.len()
                ),
            ));
        }
        let mut slots: Box<[u64]> = bindings[..binding_count]
            .iter()
            .copied()
            .chain(constants[..constant_count].iter().map(|&c| u64::from(c)))
            .collect();
        let pointers = slots
            .iter_mut()
            .map(|slot| (slot as *mut u64).cast::<c_void>())
            .collect();
        Ok(KernelParams { slots, pointers })
    }

    /// The slot values (device addresses, then constants widened to 64 bits
    /// with the value in the low bytes on little-endian hosts).
    pub fn slots(&self) -> &[u64] {
        &self.slots
    }

    /// The `kernelParams` array to hand to `cuLaunchKernel` /
    /// `hipModuleLaunchKernel`: valid while `self` lives and not moved out.
    pub fn as_mut_ptr(&mut self) -> *mut *mut c_void {
        self.pointers.as_mut_ptr()
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the kernel takes no parameters.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executable::BindingFlags;

    #[test]
    fn bindings_then_constants_in_pointer_sized_slots() {
        let export = ExportInfo {
            name: "k".into(),
            debug_name: None,
            module_ordinal: 0,
            block_dims: [1, 1, 1],
            block_shared_memory_size: 0,
            constant_count: 2,
            binding_flags: vec![BindingFlags::READ_ONLY, BindingFlags(0)],
        };
        let mut params = KernelParams::pack(&export, &[0x1000, 0x2040], &[7, 0xFFFF_FFFF]).unwrap();
        assert_eq!(params.slots(), &[0x1000, 0x2040, 7, 0xFFFF_FFFF]);
        assert_eq!(params.len(), 4);
        let base = params.slots().as_ptr() as usize;
        let pointers = params.as_mut_ptr();
        assert!(!pointers.is_null());
        // Each pointer addresses its own 8-byte slot.
        for (i, p) in params.pointers.iter().enumerate() {
            assert_eq!(*p as usize, base + 8 * i);
        }
        // Constants sit in the low four bytes of their slot.
        assert_eq!(&params.slots()[2].to_le_bytes()[..4], &7u32.to_le_bytes());
        assert!(KernelParams::pack(&export, &[0x1000], &[1, 2]).is_err());
        assert!(KernelParams::pack(&export, &[1, 2], &[1]).is_err());
    }
}
