// iree-rs C API: the `hal` module (`iree/modules/hal/module.h` of upstream
// IREE), for hosts that build their contexts by hand.

#ifndef IREE_MODULES_HAL_MODULE_H_
#define IREE_MODULES_HAL_MODULE_H_

#include <stdint.h>

#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/modules/hal/debugging.h"
#include "iree/modules/hal/types.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef uint64_t iree_hal_module_device_allocator_select_flags_t;

typedef struct iree_hal_device_queue_affinity_pair_t {
  iree_hal_device_t* device;
  iree_hal_queue_affinity_t queue_affinity;
} iree_hal_device_queue_affinity_pair_t;

// Picks the device whose allocator serves an allocation compatible with
// all of |devices|.
typedef iree_status_t(
    IREE_API_PTR* iree_hal_module_device_allocator_select_callback_fn_t)(
    void* user_data, iree_host_size_t device_count,
    const iree_hal_device_queue_affinity_pair_t* devices,
    iree_hal_memory_type_t memory_types, iree_hal_buffer_usage_t buffer_usage,
    iree_hal_module_device_allocator_select_flags_t flags,
    iree_host_size_t* out_selection);

typedef struct iree_hal_module_device_allocator_select_callback_t {
  iree_hal_module_device_allocator_select_callback_fn_t fn;
  void* user_data;
} iree_hal_module_device_allocator_select_callback_t;

// How the module chooses among its devices. Only the default policy (NULL
// callbacks) is supported.
typedef struct iree_hal_module_device_policy_t {
  iree_hal_module_device_allocator_select_callback_t allocator_select;
} iree_hal_module_device_policy_t;

IREE_API_EXPORT iree_hal_module_device_policy_t
iree_hal_module_device_policy_default(void);

enum iree_hal_module_flag_bits_t {
  IREE_HAL_MODULE_FLAG_NONE = 0u,
  // Calls block until their work completes (accepted: local devices of
  // this library complete work in order).
  IREE_HAL_MODULE_FLAG_SYNCHRONOUS = 1u << 0,
  IREE_HAL_MODULE_FLAG_RETAIN_COMMAND_BUFFER_PROFILE_METADATA = 1u << 1,
};
typedef uint32_t iree_hal_module_flags_t;

// The `hal` module serving the devices of |device_group| (device 0 is the
// default). The module owns |debug_sink| from the call on (released with
// the module, or at once when creation fails).
IREE_API_EXPORT iree_status_t iree_hal_module_create(
    iree_vm_instance_t* instance, iree_hal_module_device_policy_t device_policy,
    iree_hal_device_group_t* device_group, iree_hal_module_flags_t flags,
    iree_hal_module_debug_sink_t debug_sink, iree_allocator_t host_allocator,
    iree_vm_module_t** out_module);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_MODULES_HAL_MODULE_H_
