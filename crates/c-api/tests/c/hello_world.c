// Multiplies two 4xf32 tensors with `module.simple_mul` through the runtime
// API and prints operands and result, as upstream's runtime demos do.
// The module comes from the file named on the command line, or (built with
// -DEMBEDDED_MODULE) from bytes compiled into the program.

#include <stdio.h>

#include "iree/runtime/api.h"

#if defined(EMBEDDED_MODULE)
extern const unsigned char embedded_module_data[];
extern const size_t embedded_module_size;
#endif  // EMBEDDED_MODULE

static iree_status_t append_module(iree_runtime_session_t* session,
                                   const char* path) {
#if defined(EMBEDDED_MODULE)
  (void)path;
  return iree_runtime_session_append_bytecode_module_from_memory(
      session, iree_make_const_byte_span(embedded_module_data,
                                         embedded_module_size),
      iree_allocator_null());
#else
  return iree_runtime_session_append_bytecode_module_from_file(session, path);
#endif  // EMBEDDED_MODULE
}

// Pushes a 4xf32 view of |values| onto the call's inputs and prints it.
static iree_status_t push_input(iree_runtime_session_t* session,
                                iree_runtime_call_t* call,
                                const float values[4]) {
  static const iree_hal_dim_t shape[1] = {4};
  iree_hal_buffer_params_t params = {0};
  params.type = IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL;
  params.access = IREE_HAL_MEMORY_ACCESS_ALL;
  params.usage = IREE_HAL_BUFFER_USAGE_DEFAULT;
  iree_hal_buffer_view_t* view = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_buffer_view_allocate_buffer_copy(
      iree_runtime_session_device(session),
      iree_runtime_session_device_allocator(session), IREE_ARRAYSIZE(shape),
      shape, IREE_HAL_ELEMENT_TYPE_FLOAT_32,
      IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR, params,
      iree_make_const_byte_span(values, 4 * sizeof(float)), &view));
  iree_status_t status = iree_hal_buffer_view_fprint(
      stdout, view, 4096, iree_runtime_session_host_allocator(session));
  if (iree_status_is_ok(status)) {
    status = iree_runtime_call_inputs_push_back_buffer_view(call, view);
  }
  iree_hal_buffer_view_release(view);
  return status;
}

static iree_status_t multiply(iree_runtime_session_t* session) {
  iree_runtime_call_t call;
  IREE_RETURN_IF_ERROR(iree_runtime_call_initialize_by_name(
      session, iree_make_cstring_view("module.simple_mul"), &call));
  static const float lhs[4] = {1.0f, 1.1f, 1.2f, 1.3f};
  static const float rhs[4] = {10.0f, 100.0f, 1000.0f, 10000.0f};
  iree_status_t status = push_input(session, &call, lhs);
  fprintf(stdout, "\n * \n");
  if (iree_status_is_ok(status)) status = push_input(session, &call, rhs);
  if (iree_status_is_ok(status)) status = iree_runtime_call_invoke(&call, 0);
  fprintf(stdout, "\n = \n");
  iree_hal_buffer_view_t* result = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_runtime_call_outputs_pop_front_buffer_view(&call, &result);
  }
  if (iree_status_is_ok(status)) {
    status = iree_hal_buffer_view_fprint(
        stdout, result, 4096, iree_runtime_session_host_allocator(session));
  }
  iree_hal_buffer_view_release(result);
  iree_runtime_call_deinitialize(&call);
  return status;
}

static iree_status_t run(iree_runtime_instance_t* instance, const char* path) {
  iree_hal_device_t* device = NULL;
  IREE_RETURN_IF_ERROR(iree_runtime_instance_try_create_default_device(
      instance, iree_make_cstring_view("local-task"), &device));
  iree_runtime_session_options_t options;
  iree_runtime_session_options_initialize(&options);
  iree_runtime_session_t* session = NULL;
  iree_status_t status = iree_runtime_session_create_with_device(
      instance, &options, device, iree_runtime_instance_host_allocator(instance),
      &session);
  iree_hal_device_release(device);
  if (iree_status_is_ok(status)) status = append_module(session, path);
  if (iree_status_is_ok(status)) status = multiply(session);
  iree_runtime_session_release(session);
  return status;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : NULL;
  iree_runtime_instance_options_t options;
  iree_runtime_instance_options_initialize(&options);
  iree_runtime_instance_options_use_all_available_drivers(&options);
  iree_runtime_instance_t* instance = NULL;
  iree_status_t status =
      iree_runtime_instance_create(&options, iree_allocator_system(), &instance);
  if (iree_status_is_ok(status)) status = run(instance, path);
  iree_runtime_instance_release(instance);
  int exit_code = (int)iree_status_code(status);
  if (!iree_status_is_ok(status)) {
    iree_status_fprint(stderr, status);
    iree_status_ignore(status);
  }
  return exit_code;
}
