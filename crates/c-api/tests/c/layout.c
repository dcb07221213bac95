// Prints the size and alignment of every structure the C API shares with
// callers, and the offset of each field, one per line. Compiled against
// this library's headers it must print what tests/layout_expected.txt
// records (the numbers upstream IREE's headers give on x86-64 Linux).

#include <stddef.h>
#include <stdio.h>

#include "iree/async/frontier_tracker.h"
#include "iree/async/util/proactor_pool.h"
#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/hal/drivers/local_sync/sync_device.h"
#include "iree/hal/local/executable_library.h"
#include "iree/hal/local/executable_loader.h"
#include "iree/io/file_contents.h"
#include "iree/modules/hal/module.h"
#include "iree/modules/hal/types.h"
#include "iree/runtime/api.h"
#include "iree/vm/api.h"
#include "iree/vm/native_module.h"

#define SIZE(type) \
  printf("%s size %zu align %zu\n", #type, sizeof(type), _Alignof(type))
#define FIELD(type, field) \
  printf("%s.%s %zu\n", #type, #field, offsetof(type, field))

int main(void) {
  SIZE(iree_string_view_t);
  FIELD(iree_string_view_t, data);
  FIELD(iree_string_view_t, size);
  SIZE(iree_byte_span_t);
  FIELD(iree_byte_span_t, data);
  FIELD(iree_byte_span_t, data_length);
  SIZE(iree_const_byte_span_t);
  FIELD(iree_const_byte_span_t, data_length);
  SIZE(iree_string_pair_t);
  FIELD(iree_string_pair_t, key);
  FIELD(iree_string_pair_t, value);
  SIZE(iree_allocator_t);
  FIELD(iree_allocator_t, self);
  FIELD(iree_allocator_t, ctl);
  SIZE(iree_allocator_alloc_params_t);
  SIZE(iree_timeout_t);
  FIELD(iree_timeout_t, type);
  FIELD(iree_timeout_t, nanos);
  SIZE(iree_status_source_location_t);
  FIELD(iree_status_source_location_t, file);
  FIELD(iree_status_source_location_t, line);
  SIZE(iree_string_builder_t);
  FIELD(iree_string_builder_t, allocator);
  FIELD(iree_string_builder_t, buffer);
  FIELD(iree_string_builder_t, size);
  FIELD(iree_string_builder_t, capacity);

  SIZE(iree_vm_ref_t);
  FIELD(iree_vm_ref_t, ptr);
  FIELD(iree_vm_ref_t, type);
  SIZE(iree_vm_ref_type_descriptor_t);
  FIELD(iree_vm_ref_type_descriptor_t, destroy);
  FIELD(iree_vm_ref_type_descriptor_t, type_name);
  SIZE(iree_vm_ref_object_t);
  SIZE(iree_vm_value_t);
  FIELD(iree_vm_value_t, type);
  FIELD(iree_vm_value_t, i64);
  SIZE(iree_vm_type_def_t);
  SIZE(iree_vm_variant_t);
  FIELD(iree_vm_variant_t, type);
  FIELD(iree_vm_variant_t, ref);
  FIELD(iree_vm_variant_t, i32);
  SIZE(iree_vm_function_t);
  FIELD(iree_vm_function_t, module);
  FIELD(iree_vm_function_t, linkage);
  FIELD(iree_vm_function_t, ordinal);
  SIZE(iree_vm_function_signature_t);
  SIZE(iree_vm_module_signature_t);
  FIELD(iree_vm_module_signature_t, version);
  FIELD(iree_vm_module_signature_t, attr_count);
  FIELD(iree_vm_module_signature_t, import_function_count);
  FIELD(iree_vm_module_signature_t, export_function_count);
  FIELD(iree_vm_module_signature_t, internal_function_count);
  SIZE(iree_vm_module_dependency_t);
  FIELD(iree_vm_module_dependency_t, name);
  FIELD(iree_vm_module_dependency_t, minimum_version);
  FIELD(iree_vm_module_dependency_t, flags);
  SIZE(iree_vm_function_call_t);
  FIELD(iree_vm_function_call_t, function);
  FIELD(iree_vm_function_call_t, arguments);
  FIELD(iree_vm_function_call_t, results);
  SIZE(iree_vm_source_location_t);
  FIELD(iree_vm_source_location_t, self);
  FIELD(iree_vm_source_location_t, data);
  FIELD(iree_vm_source_location_t, format);
  SIZE(iree_vm_module_t);
  FIELD(iree_vm_module_t, self);
  FIELD(iree_vm_module_t, ref_count);
  FIELD(iree_vm_module_t, destroy);
  FIELD(iree_vm_module_t, name);
  FIELD(iree_vm_module_t, signature);
  FIELD(iree_vm_module_t, enumerate_dependencies);
  FIELD(iree_vm_module_t, get_module_attr);
  FIELD(iree_vm_module_t, lookup_function);
  FIELD(iree_vm_module_t, get_function);
  FIELD(iree_vm_module_t, get_function_attr);
  FIELD(iree_vm_module_t, resolve_source_location);
  FIELD(iree_vm_module_t, alloc_state);
  FIELD(iree_vm_module_t, free_state);
  FIELD(iree_vm_module_t, fork_state);
  FIELD(iree_vm_module_t, resolve_import);
  FIELD(iree_vm_module_t, notify);
  FIELD(iree_vm_module_t, begin_call);
  FIELD(iree_vm_module_t, resume_call);
  SIZE(iree_vm_stack_frame_t);
  FIELD(iree_vm_stack_frame_t, type);
  FIELD(iree_vm_stack_frame_t, function);
  FIELD(iree_vm_stack_frame_t, module_state);
  FIELD(iree_vm_stack_frame_t, pc);
  FIELD(iree_vm_stack_frame_t, depth);
  SIZE(iree_vm_state_resolver_t);
  FIELD(iree_vm_state_resolver_t, self);
  FIELD(iree_vm_state_resolver_t, query_module_state);
  SIZE(iree_vm_buffer_t);
  FIELD(iree_vm_buffer_t, ref_object);
  FIELD(iree_vm_buffer_t, access);
  FIELD(iree_vm_buffer_t, data);
  FIELD(iree_vm_buffer_t, allocator);
  FIELD(iree_vm_buffer_t, storage_module);

  SIZE(iree_vm_native_import_descriptor_t);
  FIELD(iree_vm_native_import_descriptor_t, flags);
  FIELD(iree_vm_native_import_descriptor_t, full_name);
  SIZE(iree_vm_native_export_descriptor_t);
  FIELD(iree_vm_native_export_descriptor_t, local_name);
  FIELD(iree_vm_native_export_descriptor_t, calling_convention);
  FIELD(iree_vm_native_export_descriptor_t, attr_count);
  FIELD(iree_vm_native_export_descriptor_t, attrs);
  SIZE(iree_vm_native_function_ptr_t);
  FIELD(iree_vm_native_function_ptr_t, shim);
  FIELD(iree_vm_native_function_ptr_t, target);
  SIZE(iree_vm_native_module_descriptor_t);
  FIELD(iree_vm_native_module_descriptor_t, name);
  FIELD(iree_vm_native_module_descriptor_t, version);
  FIELD(iree_vm_native_module_descriptor_t, attr_count);
  FIELD(iree_vm_native_module_descriptor_t, attrs);
  FIELD(iree_vm_native_module_descriptor_t, dependency_count);
  FIELD(iree_vm_native_module_descriptor_t, dependencies);
  FIELD(iree_vm_native_module_descriptor_t, import_count);
  FIELD(iree_vm_native_module_descriptor_t, imports);
  FIELD(iree_vm_native_module_descriptor_t, export_count);
  FIELD(iree_vm_native_module_descriptor_t, exports);
  FIELD(iree_vm_native_module_descriptor_t, function_count);
  FIELD(iree_vm_native_module_descriptor_t, functions);

  SIZE(iree_hal_semaphore_list_t);
  FIELD(iree_hal_semaphore_list_t, count);
  FIELD(iree_hal_semaphore_list_t, semaphores);
  FIELD(iree_hal_semaphore_list_t, payload_values);
  SIZE(iree_hal_buffer_params_t);
  FIELD(iree_hal_buffer_params_t, usage);
  FIELD(iree_hal_buffer_params_t, access);
  FIELD(iree_hal_buffer_params_t, type);
  FIELD(iree_hal_buffer_params_t, queue_affinity);
  FIELD(iree_hal_buffer_params_t, min_alignment);
  SIZE(iree_hal_buffer_mapping_impl_t);
  FIELD(iree_hal_buffer_mapping_impl_t, byte_offset);
  FIELD(iree_hal_buffer_mapping_impl_t, allowed_access);
  FIELD(iree_hal_buffer_mapping_impl_t, reserved);
  SIZE(iree_hal_buffer_mapping_t);
  FIELD(iree_hal_buffer_mapping_t, contents);
  FIELD(iree_hal_buffer_mapping_t, buffer);
  FIELD(iree_hal_buffer_mapping_t, impl);

  SIZE(iree_io_file_contents_t);
  FIELD(iree_io_file_contents_t, allocator);
  FIELD(iree_io_file_contents_t, buffer);
  FIELD(iree_io_file_contents_t, const_buffer);
  FIELD(iree_io_file_contents_t, mapping);

  SIZE(iree_runtime_instance_options_t);
  FIELD(iree_runtime_instance_options_t, driver_registry);
  SIZE(iree_runtime_session_options_t);
  FIELD(iree_runtime_session_options_t, context_flags);
  FIELD(iree_runtime_session_options_t, builtin_modules);
  SIZE(iree_runtime_call_t);
  FIELD(iree_runtime_call_t, session);
  FIELD(iree_runtime_call_t, function);
  FIELD(iree_runtime_call_t, inputs);
  FIELD(iree_runtime_call_t, outputs);

  SIZE(iree_async_proactor_options_t);
  FIELD(iree_async_proactor_options_t, max_concurrent_operations);
  FIELD(iree_async_proactor_options_t, debug_name);
  FIELD(iree_async_proactor_options_t, allowed_capabilities);
  FIELD(iree_async_proactor_options_t, message_pool_capacity);
  FIELD(iree_async_proactor_options_t, threading_mode);
  SIZE(iree_async_proactor_pool_runner_factory_t);
  FIELD(iree_async_proactor_pool_runner_factory_t, user_data);
  FIELD(iree_async_proactor_pool_runner_factory_t, create);
  FIELD(iree_async_proactor_pool_runner_factory_t, request_stop);
  FIELD(iree_async_proactor_pool_runner_factory_t, destroy);
  SIZE(iree_async_proactor_pool_options_t);
  FIELD(iree_async_proactor_pool_options_t, proactor_options);
  FIELD(iree_async_proactor_pool_options_t, runner);
  SIZE(iree_async_frontier_tracker_options_t);
  FIELD(iree_async_frontier_tracker_options_t, axis_table_capacity);
  FIELD(iree_async_frontier_tracker_options_t, session_epoch);
  FIELD(iree_async_frontier_tracker_options_t, machine_index);

  SIZE(iree_hal_device_create_params_t);
  FIELD(iree_hal_device_create_params_t, next);
  FIELD(iree_hal_device_create_params_t, proactor_pool);
  SIZE(iree_hal_sync_device_params_t);
  FIELD(iree_hal_sync_device_params_t, arena_block_size);
  SIZE(iree_hal_executable_import_provider_t);
  FIELD(iree_hal_executable_import_provider_t, self);
  FIELD(iree_hal_executable_import_provider_t, resolve);
  SIZE(iree_hal_device_queue_affinity_pair_t);
  FIELD(iree_hal_device_queue_affinity_pair_t, device);
  FIELD(iree_hal_device_queue_affinity_pair_t, queue_affinity);
  SIZE(iree_hal_module_device_allocator_select_callback_t);
  FIELD(iree_hal_module_device_allocator_select_callback_t, fn);
  FIELD(iree_hal_module_device_allocator_select_callback_t, user_data);
  SIZE(iree_hal_module_device_policy_t);
  FIELD(iree_hal_module_device_policy_t, allocator_select);
  SIZE(iree_hal_module_debug_sink_release_callback_t);
  FIELD(iree_hal_module_debug_sink_release_callback_t, fn);
  FIELD(iree_hal_module_debug_sink_release_callback_t, user_data);
  SIZE(iree_hal_module_buffer_view_trace_callback_t);
  FIELD(iree_hal_module_buffer_view_trace_callback_t, fn);
  FIELD(iree_hal_module_buffer_view_trace_callback_t, user_data);
  SIZE(iree_hal_module_debug_sink_t);
  FIELD(iree_hal_module_debug_sink_t, release);
  FIELD(iree_hal_module_debug_sink_t, buffer_view_trace);

  SIZE(iree_hal_executable_library_header_t);
  FIELD(iree_hal_executable_library_header_t, version);
  FIELD(iree_hal_executable_library_header_t, name);
  FIELD(iree_hal_executable_library_header_t, features);
  FIELD(iree_hal_executable_library_header_t, sanitizer);
  SIZE(iree_hal_executable_import_table_v0_t);
  FIELD(iree_hal_executable_import_table_v0_t, count);
  FIELD(iree_hal_executable_import_table_v0_t, symbols);
  SIZE(iree_hal_processor_v0_t);
  SIZE(iree_hal_executable_environment_v0_t);
  FIELD(iree_hal_executable_environment_v0_t, constants);
  FIELD(iree_hal_executable_environment_v0_t, import_thunk);
  FIELD(iree_hal_executable_environment_v0_t, import_funcs);
  FIELD(iree_hal_executable_environment_v0_t, import_contexts);
  FIELD(iree_hal_executable_environment_v0_t, processor);
  SIZE(iree_hal_executable_dispatch_state_v0_t);
  FIELD(iree_hal_executable_dispatch_state_v0_t, workgroup_size_x);
  FIELD(iree_hal_executable_dispatch_state_v0_t, workgroup_size_y);
  FIELD(iree_hal_executable_dispatch_state_v0_t, workgroup_size_z);
  FIELD(iree_hal_executable_dispatch_state_v0_t, constant_count);
  FIELD(iree_hal_executable_dispatch_state_v0_t, workgroup_count_x);
  FIELD(iree_hal_executable_dispatch_state_v0_t, workgroup_count_y);
  FIELD(iree_hal_executable_dispatch_state_v0_t, workgroup_count_z);
  FIELD(iree_hal_executable_dispatch_state_v0_t, max_concurrency);
  FIELD(iree_hal_executable_dispatch_state_v0_t, binding_count);
  FIELD(iree_hal_executable_dispatch_state_v0_t, constants);
  FIELD(iree_hal_executable_dispatch_state_v0_t, binding_ptrs);
  FIELD(iree_hal_executable_dispatch_state_v0_t, binding_lengths);
  SIZE(iree_hal_executable_workgroup_state_v0_t);
  FIELD(iree_hal_executable_workgroup_state_v0_t, workgroup_id_x);
  FIELD(iree_hal_executable_workgroup_state_v0_t, workgroup_id_y);
  FIELD(iree_hal_executable_workgroup_state_v0_t, workgroup_id_z);
  FIELD(iree_hal_executable_workgroup_state_v0_t, reserved);
  FIELD(iree_hal_executable_workgroup_state_v0_t, processor_id);
  FIELD(iree_hal_executable_workgroup_state_v0_t, local_memory);
  FIELD(iree_hal_executable_workgroup_state_v0_t, local_memory_size);
  SIZE(iree_hal_executable_dispatch_attrs_v0_t);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, flags);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, local_memory_pages);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, constant_count);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, binding_count);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, workgroup_size_x);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, workgroup_size_y);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, workgroup_size_z);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, parameter_count);
  FIELD(iree_hal_executable_dispatch_attrs_v0_t, reserved_1);
  SIZE(iree_hal_executable_dispatch_parameter_v0_t);
  FIELD(iree_hal_executable_dispatch_parameter_v0_t, type);
  FIELD(iree_hal_executable_dispatch_parameter_v0_t, size);
  FIELD(iree_hal_executable_dispatch_parameter_v0_t, flags);
  FIELD(iree_hal_executable_dispatch_parameter_v0_t, name);
  FIELD(iree_hal_executable_dispatch_parameter_v0_t, offset);
  SIZE(iree_hal_executable_dispatch_occupancy_v0_t);
  SIZE(iree_hal_executable_source_location_v0_t);
  FIELD(iree_hal_executable_source_location_v0_t, line);
  FIELD(iree_hal_executable_source_location_v0_t, path_length);
  FIELD(iree_hal_executable_source_location_v0_t, path);
  SIZE(iree_hal_executable_stage_location_table_v0_t);
  FIELD(iree_hal_executable_stage_location_table_v0_t, count);
  FIELD(iree_hal_executable_stage_location_table_v0_t, names);
  FIELD(iree_hal_executable_stage_location_table_v0_t, locations);
  SIZE(iree_hal_executable_export_table_v0_t);
  FIELD(iree_hal_executable_export_table_v0_t, count);
  FIELD(iree_hal_executable_export_table_v0_t, ptrs);
  FIELD(iree_hal_executable_export_table_v0_t, attrs);
  FIELD(iree_hal_executable_export_table_v0_t, params);
  FIELD(iree_hal_executable_export_table_v0_t, occupancy);
  FIELD(iree_hal_executable_export_table_v0_t, names);
  FIELD(iree_hal_executable_export_table_v0_t, tags);
  FIELD(iree_hal_executable_export_table_v0_t, parameter_names);
  FIELD(iree_hal_executable_export_table_v0_t, source_locations);
  FIELD(iree_hal_executable_export_table_v0_t, stage_locations);
  SIZE(iree_hal_executable_constant_table_v0_t);
  FIELD(iree_hal_executable_constant_table_v0_t, count);
  SIZE(iree_hal_executable_source_file_v0_t);
  FIELD(iree_hal_executable_source_file_v0_t, path_length);
  FIELD(iree_hal_executable_source_file_v0_t, path);
  FIELD(iree_hal_executable_source_file_v0_t, content_length);
  FIELD(iree_hal_executable_source_file_v0_t, content);
  SIZE(iree_hal_executable_source_file_table_v0_t);
  FIELD(iree_hal_executable_source_file_table_v0_t, count);
  FIELD(iree_hal_executable_source_file_table_v0_t, files);
  SIZE(iree_hal_executable_library_v0_t);
  FIELD(iree_hal_executable_library_v0_t, header);
  FIELD(iree_hal_executable_library_v0_t, imports);
  FIELD(iree_hal_executable_library_v0_t, exports);
  FIELD(iree_hal_executable_library_v0_t, constants);
  FIELD(iree_hal_executable_library_v0_t, sources);
  return 0;
}
