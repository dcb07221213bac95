// Provides a program's parameters from C, as upstream's tools do with
// --parameters: opens a parameter archive, indexes it, serves its scope
// through an index provider and the io_parameters module appended to a
// runtime session, then calls `module.scaled` (a global loaded from
// parameter "model"::"w_i32" times the input). Also prints the index and
// the status codes of a missing file and of an unknown format.
// Usage: parameters params.vmfb ints.irpa

#include <stdio.h>
#include <string.h>

#include "iree/io/formats/parser_registry.h"
#include "iree/io/parameter_index_provider.h"
#include "iree/modules/io/parameters/module.h"
#include "iree/runtime/api.h"

static iree_status_t create_parameters_module(iree_vm_instance_t* instance,
                                              const char* path,
                                              iree_vm_module_t** out_module) {
  iree_allocator_t host_allocator = iree_allocator_system();
  iree_io_file_handle_t* file = NULL;
  IREE_RETURN_IF_ERROR(iree_io_file_handle_open(
      IREE_IO_FILE_MODE_READ | IREE_IO_FILE_MODE_SHARE_READ,
      iree_make_cstring_view(path), host_allocator, &file));
  iree_io_parameter_index_t* index = NULL;
  iree_status_t status = iree_io_parameter_index_create(host_allocator, &index);
  if (iree_status_is_ok(status)) {
    status = iree_io_parse_file_index(iree_make_cstring_view(path), file,
                                      index, host_allocator);
  }
  iree_io_file_handle_release(file);
  if (iree_status_is_ok(status)) {
    fprintf(stdout, "%d entries\n", (int)iree_io_parameter_index_count(index));
    status = iree_io_parameter_index_fprint(
        stdout, iree_make_cstring_view("model"), index);
  }
  iree_io_parameter_provider_t* provider = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_io_parameter_index_provider_create(
        iree_make_cstring_view("model"), index,
        IREE_IO_PARAMETER_INDEX_PROVIDER_DEFAULT_MAX_CONCURRENT_OPERATIONS,
        host_allocator, &provider);
  }
  iree_io_parameter_index_release(index);
  if (iree_status_is_ok(status)) {
    fprintf(stdout, "serves model: %d, other: %d\n",
            iree_io_parameter_provider_query_support(
                provider, iree_make_cstring_view("model")),
            iree_io_parameter_provider_query_support(
                provider, iree_make_cstring_view("other")));
    status = iree_io_parameters_module_create(instance, 1, &provider,
                                              host_allocator, out_module);
  }
  iree_io_parameter_provider_release(provider);
  return status;
}

static iree_status_t call_scaled(iree_runtime_session_t* session) {
  iree_runtime_call_t call;
  IREE_RETURN_IF_ERROR(iree_runtime_call_initialize_by_name(
      session, iree_make_cstring_view("module.scaled"), &call));
  const int32_t data[6] = {1, 2, 3, 4, 5, 6};
  iree_hal_dim_t shape[2] = {2, 3};
  iree_hal_buffer_params_t params = {0};
  params.type = IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL;
  params.usage = IREE_HAL_BUFFER_USAGE_DEFAULT;
  iree_hal_buffer_view_t* input = NULL;
  iree_status_t status = iree_hal_buffer_view_allocate_buffer_copy(
      iree_runtime_session_device(session),
      iree_runtime_session_device_allocator(session), 2, shape,
      IREE_HAL_ELEMENT_TYPE_INT_32, IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR,
      params, iree_make_const_byte_span(data, sizeof(data)), &input);
  if (iree_status_is_ok(status)) {
    status = iree_runtime_call_inputs_push_back_buffer_view(&call, input);
  }
  iree_hal_buffer_view_release(input);
  if (iree_status_is_ok(status)) status = iree_runtime_call_invoke(&call, 0);
  iree_hal_buffer_view_t* result = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_runtime_call_outputs_pop_front_buffer_view(&call, &result);
  }
  if (iree_status_is_ok(status)) {
    status = iree_hal_buffer_view_fprint(
        stdout, result, 16, iree_runtime_session_host_allocator(session));
    fprintf(stdout, "\n");
  }
  iree_hal_buffer_view_release(result);
  iree_runtime_call_deinitialize(&call);
  return status;
}

static void print_code(const char* what, iree_status_t status) {
  fprintf(stdout, "%s: %s\n", what,
          iree_status_code_string(iree_status_code(status)));
  iree_status_free(status);
}

static iree_status_t run(iree_runtime_instance_t* instance,
                         const char* module_path, const char* params_path) {
  iree_hal_device_t* device = NULL;
  IREE_RETURN_IF_ERROR(iree_runtime_instance_try_create_default_device(
      instance, iree_make_cstring_view("local-sync"), &device));
  iree_runtime_session_options_t options;
  iree_runtime_session_options_initialize(&options);
  iree_runtime_session_t* session = NULL;
  iree_status_t status = iree_runtime_session_create_with_device(
      instance, &options, device, iree_runtime_instance_host_allocator(instance),
      &session);
  iree_hal_device_release(device);
  iree_vm_module_t* parameters = NULL;
  if (iree_status_is_ok(status)) {
    status = create_parameters_module(
        iree_runtime_instance_vm_instance(instance), params_path, &parameters);
  }
  if (iree_status_is_ok(status)) {
    status = iree_runtime_session_append_module(session, parameters);
  }
  iree_vm_module_release(parameters);
  if (iree_status_is_ok(status)) {
    status = iree_runtime_session_append_bytecode_module_from_file(
        session, module_path);
  }
  if (iree_status_is_ok(status)) status = call_scaled(session);
  iree_runtime_session_release(session);
  return status;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: parameters params.vmfb ints.irpa\n");
    return 2;
  }
  iree_runtime_instance_options_t instance_options;
  iree_runtime_instance_options_initialize(&instance_options);
  iree_runtime_instance_options_use_all_available_drivers(&instance_options);
  iree_runtime_instance_t* instance = NULL;
  iree_status_t status = iree_runtime_instance_create(
      &instance_options, iree_allocator_system(), &instance);
  if (iree_status_is_ok(status)) status = run(instance, argv[1], argv[2]);

  iree_io_file_handle_t* file = NULL;
  print_code("missing file",
             iree_io_file_handle_open(
                 IREE_IO_FILE_MODE_READ,
                 iree_make_cstring_view("/nonexistent/params.irpa"),
                 iree_allocator_system(), &file));
  iree_io_parameter_index_t* index = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_io_parameter_index_create(iree_allocator_system(), &index);
  }
  if (iree_status_is_ok(status)) {
    status = iree_io_file_handle_preload(
        IREE_IO_FILE_MODE_READ, iree_make_cstring_view(argv[2]),
        iree_allocator_system(), &file);
  }
  if (iree_status_is_ok(status)) {
    print_code("unknown format",
               iree_io_parse_file_index(iree_make_cstring_view("params.bin"),
                                        file, index, iree_allocator_system()));
  }
  iree_io_file_handle_release(file);
  iree_io_parameter_index_release(index);
  iree_runtime_instance_release(instance);
  if (!iree_status_is_ok(status)) {
    iree_status_fprint(stderr, status);
    iree_status_free(status);
    return 1;
  }
  return 0;
}
