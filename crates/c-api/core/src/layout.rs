//! The Rust mirrors of the structures C shares with the library have
//! upstream's sizes and offsets (x86-64 and AArch64 Linux; the numbers of
//! `tests/layout_expected.txt`, which the C side of the layout test
//! checks). A mismatch fails the build.

use std::mem::{offset_of, size_of};

use crate::allocator::iree_allocator_t;
use crate::hal::{
    iree_hal_buffer_mapping_impl_t, iree_hal_buffer_mapping_t, iree_hal_buffer_params_t, Timeout,
};
use crate::hal_local::{
    iree_async_frontier_tracker_options_t, iree_async_proactor_options_t,
    iree_async_proactor_pool_options_t, iree_async_proactor_pool_runner_factory_t,
    iree_hal_device_create_params_t, iree_hal_executable_import_provider_t,
    iree_hal_module_debug_sink_t, iree_hal_module_device_policy_t, iree_hal_sync_device_params_t,
};
use crate::hal_sync::iree_hal_semaphore_list_t;
use crate::io::iree_io_file_contents_t;
use crate::native_module::{
    iree_vm_native_export_descriptor_t, iree_vm_native_function_ptr_t,
    iree_vm_native_import_descriptor_t, iree_vm_native_module_descriptor_t,
};
use crate::refs::{iree_vm_ref_t, iree_vm_ref_type_descriptor_t};
use crate::runtime::{
    iree_runtime_call_t, iree_runtime_instance_options_t, iree_runtime_session_options_t,
};
use crate::strings::{iree_string_pair_t, iree_string_view_t};
use crate::vm::{iree_vm_buffer_t, iree_vm_value_t, iree_vm_variant_t};
use crate::vm_module::{
    iree_vm_function_call_t, iree_vm_function_t, iree_vm_module_dependency_t,
    iree_vm_module_signature_t, iree_vm_module_t,
};
use crate::vm_stack::{iree_vm_stack_frame_t, iree_vm_state_resolver_t};

const _: () = {
    assert!(size_of::<iree_string_view_t>() == 16);
    assert!(size_of::<iree_string_pair_t>() == 32);
    assert!(size_of::<iree_allocator_t>() == 16);
    assert!(size_of::<Timeout>() == 16);
    assert!(size_of::<iree_vm_ref_t>() == 16);
    assert!(size_of::<iree_vm_ref_type_descriptor_t>() == 32);
    assert!(offset_of!(iree_vm_ref_type_descriptor_t, type_name) == 8);
    assert!(size_of::<iree_vm_value_t>() == 16);
    assert!(offset_of!(iree_vm_value_t, storage) == 8);
    assert!(size_of::<iree_vm_variant_t>() == 24);
    assert!(offset_of!(iree_vm_variant_t, storage) == 8);
    assert!(size_of::<iree_vm_function_t>() == 16);
    assert!(offset_of!(iree_vm_function_t, linkage) == 8);
    assert!(offset_of!(iree_vm_function_t, ordinal) == 10);
    assert!(size_of::<iree_vm_module_signature_t>() == 40);
    assert!(size_of::<iree_vm_module_dependency_t>() == 24);
    assert!(offset_of!(iree_vm_module_dependency_t, flags) == 20);
    assert!(size_of::<iree_vm_function_call_t>() == 48);
    assert!(offset_of!(iree_vm_function_call_t, results) == 32);
    assert!(size_of::<iree_vm_module_t>() == 144);
    assert!(offset_of!(iree_vm_module_t, destroy) == 16);
    assert!(offset_of!(iree_vm_module_t, begin_call) == 128);
    assert!(offset_of!(iree_vm_module_t, resume_call) == 136);
    assert!(size_of::<iree_vm_stack_frame_t>() == 48);
    assert!(offset_of!(iree_vm_stack_frame_t, module_state) == 24);
    assert!(offset_of!(iree_vm_stack_frame_t, depth) == 40);
    assert!(size_of::<iree_vm_state_resolver_t>() == 16);
    assert!(size_of::<iree_vm_buffer_t>() == 48);
    assert!(offset_of!(iree_vm_buffer_t, data) == 8);
    assert!(offset_of!(iree_vm_buffer_t, storage_module) == 40);
    assert!(size_of::<iree_vm_native_import_descriptor_t>() == 24);
    assert!(size_of::<iree_vm_native_export_descriptor_t>() == 48);
    assert!(size_of::<iree_vm_native_function_ptr_t>() == 16);
    assert!(size_of::<iree_vm_native_module_descriptor_t>() == 104);
    assert!(offset_of!(iree_vm_native_module_descriptor_t, functions) == 96);
    assert!(size_of::<iree_hal_buffer_params_t>() == 32);
    assert!(offset_of!(iree_hal_buffer_params_t, type_) == 8);
    assert!(offset_of!(iree_hal_buffer_params_t, queue_affinity) == 16);
    assert!(size_of::<iree_hal_buffer_mapping_impl_t>() == 24);
    assert!(offset_of!(iree_hal_buffer_mapping_impl_t, reserved) == 16);
    assert!(size_of::<iree_hal_buffer_mapping_t>() == 48);
    assert!(offset_of!(iree_hal_buffer_mapping_t, impl_) == 24);
    assert!(size_of::<iree_hal_semaphore_list_t>() == 24);
    // The C-visible prefix of the contents (the library's fields follow).
    assert!(offset_of!(iree_io_file_contents_t, buffer) == 16);
    assert!(offset_of!(iree_io_file_contents_t, mapping) == 32);
    assert!(size_of::<iree_runtime_instance_options_t>() == 8);
    assert!(size_of::<iree_runtime_session_options_t>() == 16);
    assert!(size_of::<iree_runtime_call_t>() == 40);
    assert!(offset_of!(iree_runtime_call_t, inputs) == 24);
    assert!(size_of::<iree_async_proactor_options_t>() == 48);
    assert!(offset_of!(iree_async_proactor_options_t, allowed_capabilities) == 24);
    assert!(offset_of!(iree_async_proactor_options_t, message_pool_capacity) == 32);
    assert!(offset_of!(iree_async_proactor_options_t, threading_mode) == 40);
    assert!(size_of::<iree_async_proactor_pool_runner_factory_t>() == 32);
    assert!(size_of::<iree_async_proactor_pool_options_t>() == 80);
    assert!(offset_of!(iree_async_proactor_pool_options_t, runner) == 48);
    assert!(size_of::<iree_async_frontier_tracker_options_t>() == 8);
    assert!(offset_of!(iree_async_frontier_tracker_options_t, session_epoch) == 4);
    assert!(offset_of!(iree_async_frontier_tracker_options_t, machine_index) == 5);
    assert!(size_of::<iree_hal_device_create_params_t>() == 16);
    assert!(size_of::<iree_hal_sync_device_params_t>() == 8);
    assert!(size_of::<iree_hal_executable_import_provider_t>() == 16);
    assert!(size_of::<iree_hal_module_device_policy_t>() == 16);
    assert!(size_of::<iree_hal_module_debug_sink_t>() == 32);
    assert!(offset_of!(iree_hal_module_debug_sink_t, buffer_view_trace) == 16);
};
