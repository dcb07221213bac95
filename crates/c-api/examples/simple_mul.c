// A complete C program embedding the iree-rs runtime through upstream
// IREE's C API: loads a compiled module, calls `module.simple_mul` on two
// 4xf32 tensors and prints the result.
//
// Build the library and the program (from the repository root):
//
//   cargo build --release -p iree-c-api
//   cc -std=c11 -I crates/c-api/include crates/c-api/examples/simple_mul.c
//      -L target/release -liree_runtime -Wl,-rpath,$PWD/target/release
//      -o simple_mul
//   ./simple_mul testdata/c-api/simple_mul.vmfb
//
// (the cc command is one line).
//
// prints 4xf32=10 110 1200 13000. The same source builds unchanged against
// upstream IREE's runtime library.

#include <stdio.h>

#include "iree/runtime/api.h"

// Makes a 4xf32 buffer view on the session's device holding |values| and
// appends it to the call's inputs.
static iree_status_t push_tensor(iree_runtime_session_t* session,
                                 iree_runtime_call_t* call,
                                 const float values[4]) {
  const iree_hal_dim_t shape[1] = {4};
  iree_hal_buffer_params_t params = {0};
  params.type = IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL;
  params.usage = IREE_HAL_BUFFER_USAGE_DEFAULT;
  iree_hal_buffer_view_t* view = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_buffer_view_allocate_buffer_copy(
      iree_runtime_session_device(session),
      iree_runtime_session_device_allocator(session), IREE_ARRAYSIZE(shape),
      shape, IREE_HAL_ELEMENT_TYPE_FLOAT_32,
      IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR, params,
      iree_make_const_byte_span(values, 4 * sizeof(float)), &view));
  // The call keeps its own reference; ours is released either way.
  iree_status_t status =
      iree_runtime_call_inputs_push_back_buffer_view(call, view);
  iree_hal_buffer_view_release(view);
  return status;
}

static iree_status_t run(iree_runtime_session_t* session) {
  // A call holds the function and its input and output lists; it can be
  // reset and invoked again.
  iree_runtime_call_t call;
  IREE_RETURN_IF_ERROR(iree_runtime_call_initialize_by_name(
      session, iree_make_cstring_view("module.simple_mul"), &call));
  static const float lhs[4] = {1.0f, 1.1f, 1.2f, 1.3f};
  static const float rhs[4] = {10.0f, 100.0f, 1000.0f, 10000.0f};
  iree_status_t status = push_tensor(session, &call, lhs);
  if (iree_status_is_ok(status)) status = push_tensor(session, &call, rhs);
  if (iree_status_is_ok(status)) status = iree_runtime_call_invoke(&call, 0);

  iree_hal_buffer_view_t* result = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_runtime_call_outputs_pop_front_buffer_view(&call, &result);
  }
  if (iree_status_is_ok(status)) {
    // Written through the caller's FILE*, in order with its own output.
    status = iree_hal_buffer_view_fprint(
        stdout, result, /*max_element_count=*/16,
        iree_runtime_session_host_allocator(session));
    fputc('\n', stdout);
  }
  iree_hal_buffer_view_release(result);
  iree_runtime_call_deinitialize(&call);
  return status;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s module.vmfb\n", argv[0]);
    return 2;
  }

  // One instance per process: the VM types and the HAL drivers.
  iree_runtime_instance_options_t instance_options;
  iree_runtime_instance_options_initialize(&instance_options);
  iree_runtime_instance_options_use_all_available_drivers(&instance_options);
  iree_runtime_instance_t* instance = NULL;
  iree_status_t status = iree_runtime_instance_create(
      &instance_options, iree_allocator_system(), &instance);

  // A device: `local-task` runs dispatches on a pool of CPU threads.
  iree_hal_device_t* device = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_runtime_instance_try_create_default_device(
        instance, iree_make_cstring_view("local-task"), &device);
  }

  // A session: the modules of one program on that device.
  iree_runtime_session_t* session = NULL;
  if (iree_status_is_ok(status)) {
    iree_runtime_session_options_t session_options;
    iree_runtime_session_options_initialize(&session_options);
    status = iree_runtime_session_create_with_device(
        instance, &session_options, device,
        iree_runtime_instance_host_allocator(instance), &session);
  }
  iree_hal_device_release(device);
  if (iree_status_is_ok(status)) {
    status = iree_runtime_session_append_bytecode_module_from_file(session,
                                                                   argv[1]);
  }

  if (iree_status_is_ok(status)) status = run(session);

  iree_runtime_session_release(session);
  iree_runtime_instance_release(instance);
  if (!iree_status_is_ok(status)) {
    // Prints as upstream does, e.g.
    // "file.c:42: NOT_FOUND; ...; while loading ...".
    iree_status_fprint(stderr, status);
    iree_status_free(status);
    return 1;
  }
  return 0;
}
