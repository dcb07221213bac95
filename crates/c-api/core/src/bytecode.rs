//! `iree_vm_bytecode_module_create`: a bytecode module from caller memory.

use std::sync::Arc;

use iree_vm::buffer::SharedBytes;
use iree_vm::Instance;
use iree_vm_bytecode::BytecodeModule;

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::handles;
use crate::io::{self, CallerBytes};
use crate::status::iree_status_t;
use crate::strings::iree_const_byte_span_t;
use crate::vm_module::{iree_vm_module_t, RustModule};

/// Loads a module from caller bytes. On success the module owns them:
/// file contents read by this library are kept by reference (and their
/// wrapper freed), other memory is freed through `archive_allocator` when
/// the module is dropped. On failure the bytes stay the caller's.
///
/// # Safety
/// `contents` stays valid as described; `archive_allocator` frees it.
pub(crate) unsafe fn load(
    instance: &Instance,
    contents: iree_const_byte_span_t,
    archive_allocator: iree_allocator_t,
) -> iree_base::Result<Arc<BytecodeModule>> {
    if let Some(file) = io::shared_bytes_of_deallocator(&archive_allocator)
        .filter(|b| b.bytes().as_ptr() == contents.data)
    {
        let module = BytecodeModule::from_bytes(instance, file)?;
        // SAFETY: the deallocator frees the contents wrapper it came from;
        // the module holds its own reference to the bytes.
        unsafe { archive_allocator.free(contents.data.cast_mut().cast()) };
        return Ok(module);
    }
    // SAFETY: per the contract.
    let caller = Arc::new(unsafe {
        CallerBytes::new(contents.data, contents.data_length, archive_allocator)
    });
    let bytes: SharedBytes = caller.clone();
    let module = BytecodeModule::from_bytes(instance, bytes)?;
    caller.take_ownership();
    Ok(module)
}

/// `iree_vm_bytecode_module_create`: loads and verifies a `.vmfb`.
///
/// # Safety
/// `instance` is live; `archive_contents` stays valid until freed through
/// `archive_allocator` (for good with the null allocator); `out_module` is
/// valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_bytecode_module_create(
    instance: *mut Instance,
    _flags: u32,
    archive_contents: iree_const_byte_span_t,
    archive_allocator: iree_allocator_t,
    _allocator: iree_allocator_t,
    out_module: *mut *mut iree_vm_module_t,
) -> iree_status_t {
    boundary::status("iree_vm_bytecode_module_create", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_module.as_mut() }.ok_or_else(|| handles::null_argument("out_module"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let instance = unsafe { handles::require(instance, "instance") }?;
        if archive_contents.data.is_null() {
            return Err(handles::null_argument("archive_contents"));
        }
        // SAFETY: per the contract.
        let module = unsafe { load(instance, archive_contents, archive_allocator) }?;
        *out = RustModule::for_module(module);
        Ok(())
    })
}
