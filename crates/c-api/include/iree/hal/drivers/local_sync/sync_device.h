// iree-rs C API: the synchronous local device
// (`iree/hal/drivers/local_sync/sync_device.h` of upstream IREE): work runs
// inline on the thread that submits it.

#ifndef IREE_HAL_DRIVERS_LOCAL_SYNC_SYNC_DEVICE_H_
#define IREE_HAL_DRIVERS_LOCAL_SYNC_SYNC_DEVICE_H_

#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/hal/local/executable_loader.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_hal_sync_device_params_t {
  // Block size of the device's transient arena (accepted).
  iree_host_size_t arena_block_size;
} iree_hal_sync_device_params_t;

IREE_API_EXPORT void iree_hal_sync_device_params_initialize(
    iree_hal_sync_device_params_t* out_params);

// A device named |identifier| loading executables with |loaders| (asked in
// order). Buffers come from a heap allocator of the device's own:
// |device_allocator| must be a heap allocator
// (iree_hal_allocator_create_heap), as upstream's samples pass.
IREE_API_EXPORT iree_status_t iree_hal_sync_device_create(
    iree_string_view_t identifier, const iree_hal_sync_device_params_t* params,
    const iree_hal_device_create_params_t* create_params,
    iree_host_size_t loader_count, iree_hal_executable_loader_t** loaders,
    iree_hal_allocator_t* device_allocator, iree_allocator_t host_allocator,
    iree_hal_device_t** out_device);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_HAL_DRIVERS_LOCAL_SYNC_SYNC_DEVICE_H_
