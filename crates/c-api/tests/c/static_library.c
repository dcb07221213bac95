// A kernel library linked into the program, as upstream's static_library
// sample has: here written by hand against iree/hal/local/executable_library.h
// (the compiler's --iree-llvmcpu-link-static output has the same shape). It
// provides `simple_mul_dispatch_0`, the library testdata/c-api/static_mul.vmfb
// names, with its one export multiplying two f32 bindings into a third.
// The host registers it with a static library loader on a synchronous
// device, runs `module.simple_mul` through a runtime session and prints the
// result. With an argument `bad-version`, the library answers with a
// version newer than the runtime's and the loader must refuse it.

#include <stdio.h>
#include <string.h>

#include "iree/async/util/proactor_pool.h"
#include "iree/base/threading/numa.h"
#include "iree/hal/drivers/local_sync/sync_device.h"
#include "iree/hal/local/executable_library.h"
#include "iree/hal/local/loaders/static_library_loader.h"
#include "iree/runtime/api.h"

static int dispatch_count = 0;

static int simple_mul_workgroup(
    const iree_hal_executable_environment_v0_t* environment,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    const iree_hal_executable_workgroup_state_v0_t* workgroup_state) {
  (void)environment;
  if (dispatch_state->binding_count != 3) return 1;
  const float* lhs = (const float*)dispatch_state->binding_ptrs[0];
  const float* rhs = (const float*)dispatch_state->binding_ptrs[1];
  float* out = (float*)dispatch_state->binding_ptrs[2];
  size_t count = dispatch_state->binding_lengths[2] / sizeof(float);
  // One workgroup per element when the grid has several; all at once when
  // it has one.
  uint32_t workgroups = dispatch_state->workgroup_count_x;
  uint32_t id = workgroup_state->workgroup_id_x;
  for (size_t i = 0; i < count; ++i) {
    if (workgroups > 1 && i % workgroups != id) continue;
    out[i] = lhs[i] * rhs[i];
  }
  ++dispatch_count;
  return 0;
}

static const iree_hal_executable_dispatch_v0_t kFunctions[] = {
    simple_mul_workgroup,
};
static const iree_hal_executable_dispatch_attrs_v0_t kAttrs[] = {
    {
        .binding_count = 3,
        .workgroup_size_x = 1,
        .workgroup_size_y = 1,
        .workgroup_size_z = 1,
    },
};
static const char* const kNames[] = {
    "simple_mul_dispatch_0_elementwise_4_f32",
};
static iree_hal_executable_library_header_t header = {
    .version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST,
    .name = "simple_mul_dispatch_0",
    .features = IREE_HAL_EXECUTABLE_LIBRARY_FEATURE_NONE,
    .sanitizer = IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE,
};
static const iree_hal_executable_library_v0_t library = {
    .header = &header,
    .imports = {0},
    .exports =
        {
            .count = 1,
            .ptrs = kFunctions,
            .attrs = kAttrs,
            .names = kNames,
        },
    .constants = {0},
    .sources = {0},
};

static const iree_hal_executable_library_header_t**
simple_mul_dispatch_0_library_query(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment) {
  (void)environment;
  if (max_version < IREE_HAL_EXECUTABLE_LIBRARY_VERSION_0_6) return NULL;
  return (const iree_hal_executable_library_header_t**)&library;
}

static iree_status_t create_device(iree_hal_device_t** out_device) {
  iree_allocator_t host_allocator = iree_allocator_system();
  iree_hal_sync_device_params_t params;
  iree_hal_sync_device_params_initialize(&params);
  const iree_hal_executable_library_query_fn_t libraries[] = {
      simple_mul_dispatch_0_library_query,
  };
  iree_hal_executable_loader_t* loader = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_static_library_loader_create(
      IREE_ARRAYSIZE(libraries), libraries,
      iree_hal_executable_import_provider_null(), host_allocator, &loader));
  iree_string_view_t identifier = iree_make_cstring_view("local-sync");
  iree_hal_allocator_t* device_allocator = NULL;
  iree_status_t status = iree_hal_allocator_create_heap(
      identifier, host_allocator, host_allocator, &device_allocator);
  iree_async_proactor_pool_t* pool = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_async_proactor_pool_create(
        iree_numa_node_count(), NULL,
        iree_async_proactor_pool_options_default(), host_allocator, &pool);
  }
  iree_hal_device_create_params_t create_params =
      iree_hal_device_create_params_default();
  create_params.proactor_pool = pool;
  if (iree_status_is_ok(status)) {
    status = iree_hal_sync_device_create(identifier, &params, &create_params,
                                         1, &loader, device_allocator,
                                         host_allocator, out_device);
  }
  iree_async_proactor_pool_release(pool);
  iree_hal_allocator_release(device_allocator);
  iree_hal_executable_loader_release(loader);
  return status;
}

static iree_status_t push_input(iree_runtime_session_t* session,
                                iree_runtime_call_t* call, float a, float b,
                                float c, float d) {
  const float data[4] = {a, b, c, d};
  iree_hal_dim_t shape[1] = {4};
  iree_hal_buffer_params_t params = {0};
  params.type = IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL;
  params.usage = IREE_HAL_BUFFER_USAGE_DEFAULT;
  iree_hal_buffer_view_t* view = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_buffer_view_allocate_buffer_copy(
      iree_runtime_session_device(session),
      iree_runtime_session_device_allocator(session), 1, shape,
      IREE_HAL_ELEMENT_TYPE_FLOAT_32, IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR,
      params, iree_make_const_byte_span(data, sizeof(data)), &view));
  iree_status_t status =
      iree_runtime_call_inputs_push_back_buffer_view(call, view);
  iree_hal_buffer_view_release(view);
  return status;
}

static iree_status_t run(iree_runtime_instance_t* instance,
                         const char* module_path) {
  iree_hal_device_t* device = NULL;
  IREE_RETURN_IF_ERROR(create_device(&device));
  iree_runtime_session_options_t options;
  iree_runtime_session_options_initialize(&options);
  iree_runtime_session_t* session = NULL;
  iree_status_t status = iree_runtime_session_create_with_device(
      instance, &options, device, iree_runtime_instance_host_allocator(instance),
      &session);
  iree_hal_device_release(device);
  if (iree_status_is_ok(status)) {
    status = iree_runtime_session_append_bytecode_module_from_file(
        session, module_path);
  }
  iree_runtime_call_t call;
  memset(&call, 0, sizeof(call));
  if (iree_status_is_ok(status)) {
    status = iree_runtime_call_initialize_by_name(
        session, iree_make_cstring_view("module.simple_mul"), &call);
  }
  if (iree_status_is_ok(status)) {
    status = push_input(session, &call, 1.5f, 2.0f, 3.0f, 4.0f);
  }
  if (iree_status_is_ok(status)) {
    status = push_input(session, &call, 2.0f, 3.0f, 4.0f, 5.0f);
  }
  if (iree_status_is_ok(status)) status = iree_runtime_call_invoke(&call, 0);
  iree_hal_buffer_view_t* result = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_runtime_call_outputs_pop_front_buffer_view(&call, &result);
  }
  if (iree_status_is_ok(status)) {
    status = iree_hal_buffer_view_fprint(
        stdout, result, 16, iree_runtime_session_host_allocator(session));
    fprintf(stdout, "\nkernel ran: %s\n", dispatch_count > 0 ? "yes" : "no");
  }
  iree_hal_buffer_view_release(result);
  iree_runtime_call_deinitialize(&call);
  iree_runtime_session_release(session);
  return status;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: static_library module.vmfb good|bad-version\n");
    return 2;
  }
  if (strcmp(argv[2], "bad-version") == 0) {
    header.version = IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST + 1;
  }
  iree_runtime_instance_options_t instance_options;
  iree_runtime_instance_options_initialize(&instance_options);
  iree_runtime_instance_options_use_all_available_drivers(&instance_options);
  iree_runtime_instance_t* instance = NULL;
  iree_status_t status = iree_runtime_instance_create(
      &instance_options, iree_allocator_system(), &instance);
  if (iree_status_is_ok(status)) status = run(instance, argv[1]);
  iree_runtime_instance_release(instance);
  if (!iree_status_is_ok(status)) {
    iree_status_fprint(stdout, status);
    fprintf(stdout, "\n");
    iree_status_free(status);
    return 1;
  }
  return 0;
}
