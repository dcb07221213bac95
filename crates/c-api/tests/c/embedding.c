// Builds a device and a context by hand, as upstream's simple_embedding
// sample does: a synchronous device with a VMVX loader and a heap
// allocator, a device group, the `hal` module with a debug sink writing
// traces to stdout, the bytecode module named on the command line, then
// `module.simple_mul` through iree_vm_invoke. Prints the trace the module
// makes and the result read back with iree_hal_device_transfer_d2h.

#include <stdio.h>

#include "iree/async/frontier_tracker.h"
#include "iree/async/util/proactor_pool.h"
#include "iree/base/api.h"
#include "iree/base/threading/numa.h"
#include "iree/hal/api.h"
#include "iree/hal/drivers/local_sync/sync_device.h"
#include "iree/hal/local/executable_loader.h"
#include "iree/hal/local/loaders/vmvx_module_loader.h"
#include "iree/io/file_contents.h"
#include "iree/modules/hal/module.h"
#include "iree/vm/api.h"
#include "iree/vm/bytecode/module.h"

static iree_status_t create_device(iree_vm_instance_t* instance,
                                   iree_hal_device_t** out_device) {
  iree_allocator_t host_allocator = iree_allocator_system();
  iree_hal_sync_device_params_t params;
  iree_hal_sync_device_params_initialize(&params);

  iree_hal_executable_loader_t* loader = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_vmvx_module_loader_create(
      instance, 0, NULL, host_allocator, &loader));
  if (!iree_hal_executable_loader_query_support(
          loader, 0, iree_make_cstring_view("vmvx-bytecode-fb"))) {
    iree_hal_executable_loader_release(loader);
    return iree_make_status(IREE_STATUS_INTERNAL, "no vmvx support");
  }

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

static iree_status_t create_hal_module(iree_vm_instance_t* instance,
                                       iree_hal_device_t* device,
                                       iree_vm_module_t** out_module) {
  iree_async_frontier_tracker_t* tracker = NULL;
  IREE_RETURN_IF_ERROR(iree_async_frontier_tracker_create(
      iree_async_frontier_tracker_options_default(), iree_allocator_system(),
      &tracker));
  iree_hal_device_group_t* group = NULL;
  iree_status_t status = iree_hal_device_group_create_from_device(
      device, tracker, iree_allocator_system(), &group);
  iree_async_frontier_tracker_release(tracker);
  if (iree_status_is_ok(status) &&
      (iree_hal_device_group_device_count(group) != 1 ||
       iree_hal_device_group_device_at(group, 0) != device ||
       iree_hal_device_group_device_at(group, 1) != NULL)) {
    status = iree_make_status(IREE_STATUS_INTERNAL, "bad device group");
  }
  if (iree_status_is_ok(status)) {
    status = iree_hal_module_create(
        instance, iree_hal_module_device_policy_default(), group,
        IREE_HAL_MODULE_FLAG_SYNCHRONOUS,
        iree_hal_module_debug_sink_stdio(stdout), iree_allocator_system(),
        out_module);
  }
  iree_hal_device_group_release(group);
  return status;
}

static iree_status_t push_input(iree_hal_device_t* device,
                                iree_vm_list_t* inputs, float value) {
  const float data[4] = {value, value, value, value};
  iree_hal_dim_t shape[1] = {4};
  iree_hal_buffer_params_t params = {0};
  params.type = IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL;
  params.usage = IREE_HAL_BUFFER_USAGE_DEFAULT;
  iree_hal_buffer_view_t* view = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_buffer_view_allocate_buffer_copy(
      device, iree_hal_device_allocator(device), 1, shape,
      IREE_HAL_ELEMENT_TYPE_FLOAT_32, IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR,
      params, iree_make_const_byte_span(data, sizeof(data)), &view));
  iree_vm_ref_t ref = iree_hal_buffer_view_move_ref(view);
  return iree_vm_list_push_ref_move(inputs, &ref);
}

static iree_status_t run(iree_vm_instance_t* instance, const char* path) {
  iree_hal_device_t* device = NULL;
  IREE_RETURN_IF_ERROR(create_device(instance, &device), "create device");
  iree_vm_module_t* hal_module = NULL;
  iree_status_t status = create_hal_module(instance, device, &hal_module);

  iree_io_file_contents_t* contents = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_io_file_contents_read(iree_make_cstring_view(path),
                                        iree_allocator_system(), &contents);
  }
  iree_vm_module_t* bytecode_module = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_vm_bytecode_module_create(
        instance, IREE_VM_BYTECODE_MODULE_FLAG_NONE, contents->const_buffer,
        iree_io_file_contents_deallocator(contents), iree_allocator_system(),
        &bytecode_module);
    if (!iree_status_is_ok(status)) iree_io_file_contents_free(contents);
  }

  iree_vm_context_t* context = NULL;
  if (iree_status_is_ok(status)) {
    iree_vm_module_t* modules[] = {hal_module, bytecode_module};
    status = iree_vm_context_create_with_modules(
        instance, IREE_VM_CONTEXT_FLAG_NONE, IREE_ARRAYSIZE(modules),
        &modules[0], iree_allocator_system(), &context);
  }
  iree_vm_module_release(hal_module);
  iree_vm_module_release(bytecode_module);

  iree_vm_function_t function;
  if (iree_status_is_ok(status)) {
    status = iree_vm_context_resolve_function(
        context, iree_make_cstring_view("module.simple_mul"), &function);
  }
  iree_vm_list_t* inputs = NULL;
  iree_vm_list_t* outputs = NULL;
  if (iree_status_is_ok(status)) {
    status = iree_vm_list_create(iree_vm_make_undefined_type_def(), 2,
                                 iree_allocator_system(), &inputs);
  }
  if (iree_status_is_ok(status)) {
    status = iree_vm_list_create(iree_vm_make_undefined_type_def(), 1,
                                 iree_allocator_system(), &outputs);
  }
  if (iree_status_is_ok(status)) status = push_input(device, inputs, 4.0f);
  if (iree_status_is_ok(status)) status = push_input(device, inputs, 2.0f);
  if (iree_status_is_ok(status)) {
    status = iree_vm_invoke(context, function, IREE_VM_INVOCATION_FLAG_NONE,
                            NULL, inputs, outputs, iree_allocator_system());
  }
  if (iree_status_is_ok(status)) {
    iree_hal_buffer_view_t* result =
        iree_vm_list_get_buffer_view_assign(outputs, 0);
    float values[4] = {0};
    if (!result) {
      status = iree_make_status(IREE_STATUS_NOT_FOUND, "no result");
    } else {
      status = iree_hal_device_transfer_d2h(
          device, iree_hal_buffer_view_buffer(result), 0, values,
          sizeof(values), IREE_HAL_TRANSFER_BUFFER_FLAG_DEFAULT,
          iree_infinite_timeout());
    }
    if (iree_status_is_ok(status)) {
      fprintf(stdout, "result %g %g %g %g\n", values[0], values[1], values[2],
              values[3]);
    }
  }
  iree_vm_list_release(inputs);
  iree_vm_list_release(outputs);
  iree_vm_context_release(context);
  iree_hal_device_release(device);
  return status;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: embedding module.vmfb\n");
    return 2;
  }
  iree_vm_instance_t* instance = NULL;
  iree_status_t status = iree_vm_instance_create(
      IREE_VM_TYPE_CAPACITY_DEFAULT, iree_allocator_system(), &instance);
  if (iree_status_is_ok(status)) {
    status = iree_hal_module_register_all_types(instance);
  }
  if (iree_status_is_ok(status)) status = run(instance, argv[1]);
  iree_vm_instance_release(instance);
  if (!iree_status_is_ok(status)) {
    iree_status_fprint(stderr, status);
    iree_status_free(status);
    return 1;
  }
  return 0;
}
