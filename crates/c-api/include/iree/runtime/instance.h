// iree-rs C API: `iree_runtime_instance_t`, shared by the sessions of a
// process: the VM instance with the HAL types and the drivers. Names and
// layouts follow upstream IREE's `iree/runtime/instance.h`.

#ifndef IREE_RUNTIME_INSTANCE_H_
#define IREE_RUNTIME_INSTANCE_H_

#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_runtime_instance_t iree_runtime_instance_t;

typedef struct iree_runtime_instance_options_t {
  // Drivers used to create devices; NULL: devices must be given to sessions.
  iree_hal_driver_registry_t* driver_registry;
} iree_runtime_instance_options_t;

IREE_API_EXPORT void iree_runtime_instance_options_initialize(
    iree_runtime_instance_options_t* out_options);
// Every driver of this build (local-sync, local-task, cuda, hip).
IREE_API_EXPORT void iree_runtime_instance_options_use_all_available_drivers(
    iree_runtime_instance_options_t* options);

IREE_API_EXPORT iree_status_t iree_runtime_instance_create(
    const iree_runtime_instance_options_t* options,
    iree_allocator_t host_allocator, iree_runtime_instance_t** out_instance);
IREE_API_EXPORT void iree_runtime_instance_retain(
    iree_runtime_instance_t* instance);
IREE_API_EXPORT void iree_runtime_instance_release(
    iree_runtime_instance_t* instance);
IREE_API_EXPORT iree_allocator_t
iree_runtime_instance_host_allocator(const iree_runtime_instance_t* instance);
IREE_API_EXPORT iree_vm_instance_t* iree_runtime_instance_vm_instance(
    const iree_runtime_instance_t* instance);
IREE_API_EXPORT iree_hal_driver_registry_t*
iree_runtime_instance_driver_registry(const iree_runtime_instance_t* instance);
// The default device of driver |driver_name| (`local-task`, `local-sync`).
IREE_API_EXPORT iree_status_t iree_runtime_instance_try_create_default_device(
    iree_runtime_instance_t* instance, iree_string_view_t driver_name,
    iree_hal_device_t** out_device);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_RUNTIME_INSTANCE_H_
