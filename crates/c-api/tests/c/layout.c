// Prints the size and alignment of every structure the C API shares with
// callers, and the offset of each field, one per line. Compiled against
// this library's headers it must print what tests/layout_expected.txt
// records (the numbers upstream IREE's headers give on x86-64 Linux).

#include <stddef.h>
#include <stdio.h>

#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/io/file_contents.h"
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
  return 0;
}
