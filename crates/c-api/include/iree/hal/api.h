// iree-rs C API: the hardware abstraction layer (`iree/hal/api.h` of
// upstream IREE): devices, allocators, buffers and buffer views. Names,
// values and layouts follow upstream's headers; only what the library
// exports is declared. HAL objects are the library's own and opaque.

#ifndef IREE_HAL_API_H_
#define IREE_HAL_API_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "iree/base/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_hal_allocator_t iree_hal_allocator_t;
typedef struct iree_hal_buffer_t iree_hal_buffer_t;
typedef struct iree_hal_buffer_view_t iree_hal_buffer_view_t;
typedef struct iree_hal_channel_t iree_hal_channel_t;
typedef struct iree_hal_command_buffer_t iree_hal_command_buffer_t;
typedef struct iree_hal_device_t iree_hal_device_t;
typedef struct iree_hal_driver_registry_t iree_hal_driver_registry_t;
typedef struct iree_hal_event_t iree_hal_event_t;
typedef struct iree_hal_executable_t iree_hal_executable_t;
typedef struct iree_hal_executable_cache_t iree_hal_executable_cache_t;
typedef struct iree_hal_fence_t iree_hal_fence_t;
typedef struct iree_hal_file_t iree_hal_file_t;
typedef struct iree_hal_semaphore_t iree_hal_semaphore_t;

//===----------------------------------------------------------------------===//
// Memory types, access and usage
//===----------------------------------------------------------------------===//

#define IREE_HAL_WHOLE_BUFFER ((iree_device_size_t)(-1))

typedef uint64_t iree_hal_queue_affinity_t;
#define IREE_HAL_QUEUE_AFFINITY_ANY ((iree_hal_queue_affinity_t)(-1))

enum iree_hal_memory_type_bits_t {
  IREE_HAL_MEMORY_TYPE_NONE = 0u,
  IREE_HAL_MEMORY_TYPE_OPTIMAL = 1u << 0,
  IREE_HAL_MEMORY_TYPE_HOST_VISIBLE = 1u << 1,
  IREE_HAL_MEMORY_TYPE_HOST_COHERENT = 1u << 2,
  IREE_HAL_MEMORY_TYPE_HOST_CACHED = 1u << 3,
  IREE_HAL_MEMORY_TYPE_HOST_LOCAL = IREE_HAL_MEMORY_TYPE_HOST_VISIBLE |
                                    IREE_HAL_MEMORY_TYPE_HOST_COHERENT |
                                    (1u << 6),
  IREE_HAL_MEMORY_TYPE_OPTIMAL_FOR_HOST =
      IREE_HAL_MEMORY_TYPE_OPTIMAL | IREE_HAL_MEMORY_TYPE_HOST_LOCAL,
  IREE_HAL_MEMORY_TYPE_DEVICE_VISIBLE = 1u << 4,
  IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL =
      IREE_HAL_MEMORY_TYPE_DEVICE_VISIBLE | (1u << 5),
  IREE_HAL_MEMORY_TYPE_OPTIMAL_FOR_DEVICE =
      IREE_HAL_MEMORY_TYPE_OPTIMAL | IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL,
};
typedef uint32_t iree_hal_memory_type_t;

enum iree_hal_memory_access_bits_t {
  IREE_HAL_MEMORY_ACCESS_NONE = 0u,
  IREE_HAL_MEMORY_ACCESS_READ = 1u << 0,
  IREE_HAL_MEMORY_ACCESS_WRITE = 1u << 1,
  IREE_HAL_MEMORY_ACCESS_DISCARD = 1u << 2,
  IREE_HAL_MEMORY_ACCESS_DISCARD_WRITE =
      IREE_HAL_MEMORY_ACCESS_WRITE | IREE_HAL_MEMORY_ACCESS_DISCARD,
  IREE_HAL_MEMORY_ACCESS_MAY_ALIAS = 1u << 3,
  IREE_HAL_MEMORY_ACCESS_UNALIGNED = 1u << 4,
  IREE_HAL_MEMORY_ACCESS_ANY = 1u << 5,
  IREE_HAL_MEMORY_ACCESS_ALL = IREE_HAL_MEMORY_ACCESS_READ |
                               IREE_HAL_MEMORY_ACCESS_WRITE |
                               IREE_HAL_MEMORY_ACCESS_DISCARD,
};
typedef uint16_t iree_hal_memory_access_t;

enum iree_hal_buffer_usage_bits_t {
  IREE_HAL_BUFFER_USAGE_NONE = 0u,
  IREE_HAL_BUFFER_USAGE_TRANSFER_SOURCE = 1u << 0,
  IREE_HAL_BUFFER_USAGE_TRANSFER_TARGET = 1u << 1,
  IREE_HAL_BUFFER_USAGE_TRANSFER = IREE_HAL_BUFFER_USAGE_TRANSFER_SOURCE |
                                   IREE_HAL_BUFFER_USAGE_TRANSFER_TARGET,
  IREE_HAL_BUFFER_USAGE_DISPATCH_INDIRECT_PARAMETERS = 1u << 8,
  IREE_HAL_BUFFER_USAGE_DISPATCH_UNIFORM_READ = 1u << 9,
  IREE_HAL_BUFFER_USAGE_DISPATCH_STORAGE_READ = 1u << 10,
  IREE_HAL_BUFFER_USAGE_DISPATCH_STORAGE_WRITE = 1u << 11,
  IREE_HAL_BUFFER_USAGE_DISPATCH_STORAGE =
      IREE_HAL_BUFFER_USAGE_DISPATCH_STORAGE_READ |
      IREE_HAL_BUFFER_USAGE_DISPATCH_STORAGE_WRITE,
  IREE_HAL_BUFFER_USAGE_DISPATCH_IMAGE_READ = 1u << 12,
  IREE_HAL_BUFFER_USAGE_DISPATCH_IMAGE_WRITE = 1u << 13,
  IREE_HAL_BUFFER_USAGE_DISPATCH_IMAGE =
      IREE_HAL_BUFFER_USAGE_DISPATCH_IMAGE_READ |
      IREE_HAL_BUFFER_USAGE_DISPATCH_IMAGE_WRITE,
  IREE_HAL_BUFFER_USAGE_DISPATCH =
      IREE_HAL_BUFFER_USAGE_DISPATCH_INDIRECT_PARAMETERS |
      IREE_HAL_BUFFER_USAGE_DISPATCH_UNIFORM_READ |
      IREE_HAL_BUFFER_USAGE_DISPATCH_STORAGE |
      IREE_HAL_BUFFER_USAGE_DISPATCH_IMAGE,
  IREE_HAL_BUFFER_USAGE_SHARING_EXPORT = 1u << 16,
  IREE_HAL_BUFFER_USAGE_SHARING_REPLICATE = 1u << 17,
  IREE_HAL_BUFFER_USAGE_SHARING_CONCURRENT = 1u << 18,
  IREE_HAL_BUFFER_USAGE_SHARING_IMMUTABLE = 1u << 19,
  IREE_HAL_BUFFER_USAGE_MAPPING_SCOPED = 1u << 24,
  IREE_HAL_BUFFER_USAGE_MAPPING_PERSISTENT = 1u << 25,
  IREE_HAL_BUFFER_USAGE_MAPPING_OPTIONAL = 1u << 26,
  IREE_HAL_BUFFER_USAGE_MAPPING_ACCESS_RANDOM = 1u << 27,
  IREE_HAL_BUFFER_USAGE_MAPPING_ACCESS_SEQUENTIAL_WRITE = 1u << 28,
  IREE_HAL_BUFFER_USAGE_MAPPING = IREE_HAL_BUFFER_USAGE_MAPPING_SCOPED |
                                  IREE_HAL_BUFFER_USAGE_MAPPING_ACCESS_RANDOM,
  IREE_HAL_BUFFER_USAGE_DEFAULT =
      IREE_HAL_BUFFER_USAGE_TRANSFER | IREE_HAL_BUFFER_USAGE_DISPATCH_STORAGE,
};
typedef uint32_t iree_hal_buffer_usage_t;

enum iree_hal_transfer_buffer_flag_bits_t {
  IREE_HAL_TRANSFER_BUFFER_FLAG_DEFAULT = 0,
};
typedef uint32_t iree_hal_transfer_buffer_flags_t;

enum iree_hal_mapping_mode_bits_t {
  IREE_HAL_MAPPING_MODE_SCOPED = 1u << 0,
  IREE_HAL_MAPPING_MODE_PERSISTENT = 1u << 1,
};
typedef uint32_t iree_hal_mapping_mode_t;

// How a buffer will be used; zero fields take their defaults.
typedef struct iree_hal_buffer_params_t {
  iree_hal_buffer_usage_t usage;
  iree_hal_memory_access_t access;
  iree_hal_memory_type_t type;
  iree_hal_queue_affinity_t queue_affinity;
  iree_device_size_t min_alignment;
} iree_hal_buffer_params_t;

static inline void iree_hal_buffer_params_canonicalize(
    iree_hal_buffer_params_t* params) {
  if (!params->usage) params->usage = IREE_HAL_BUFFER_USAGE_DEFAULT;
  if (!params->access) params->access = IREE_HAL_MEMORY_ACCESS_ALL;
  if (!params->type) params->type = IREE_HAL_MEMORY_TYPE_OPTIMAL;
  if (!params->queue_affinity) {
    params->queue_affinity = IREE_HAL_QUEUE_AFFINITY_ANY;
  }
}

typedef struct iree_hal_buffer_mapping_impl_t {
  iree_device_size_t byte_offset;
  iree_hal_memory_access_t allowed_access;
  uint32_t is_persistent : 1;
  uint32_t reserved_flags : 31;
  uint64_t reserved[1];
} iree_hal_buffer_mapping_impl_t;

// A mapped range of a buffer; |contents| is valid until unmapped.
typedef struct iree_hal_buffer_mapping_t {
  iree_byte_span_t contents;
  struct iree_hal_buffer_t* buffer;
  iree_hal_buffer_mapping_impl_t impl;
} iree_hal_buffer_mapping_t;

//===----------------------------------------------------------------------===//
// Element and encoding types
//===----------------------------------------------------------------------===//

enum iree_hal_numerical_type_bits_t {
  IREE_HAL_NUMERICAL_TYPE_UNKNOWN = 0x00u,
  IREE_HAL_NUMERICAL_TYPE_INTEGER = 0x10u,
  IREE_HAL_NUMERICAL_TYPE_INTEGER_SIGNED =
      IREE_HAL_NUMERICAL_TYPE_INTEGER | 0x01u,
  IREE_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED =
      IREE_HAL_NUMERICAL_TYPE_INTEGER | 0x02u,
  IREE_HAL_NUMERICAL_TYPE_BOOLEAN = IREE_HAL_NUMERICAL_TYPE_INTEGER | 0x03u,
  IREE_HAL_NUMERICAL_TYPE_FLOAT = 0x20,
  IREE_HAL_NUMERICAL_TYPE_FLOAT_IEEE = IREE_HAL_NUMERICAL_TYPE_FLOAT | 0x01u,
  IREE_HAL_NUMERICAL_TYPE_FLOAT_BRAIN = IREE_HAL_NUMERICAL_TYPE_FLOAT | 0x02u,
  IREE_HAL_NUMERICAL_TYPE_FLOAT_COMPLEX = IREE_HAL_NUMERICAL_TYPE_FLOAT | 0x03u,
  IREE_HAL_NUMERICAL_TYPE_FLOAT_8_E5M2 = IREE_HAL_NUMERICAL_TYPE_FLOAT | 0x04u,
  IREE_HAL_NUMERICAL_TYPE_FLOAT_8_E4M3FN =
      IREE_HAL_NUMERICAL_TYPE_FLOAT | 0x05u,
  IREE_HAL_NUMERICAL_TYPE_FLOAT_8_E5M2_FNUZ =
      IREE_HAL_NUMERICAL_TYPE_FLOAT | 0x06u,
  IREE_HAL_NUMERICAL_TYPE_FLOAT_8_E4M3_FNUZ =
      IREE_HAL_NUMERICAL_TYPE_FLOAT | 0x07u,
  IREE_HAL_NUMERICAL_TYPE_FLOAT_8_E8M0_FNU =
      IREE_HAL_NUMERICAL_TYPE_FLOAT | 0x08u,
};
typedef uint8_t iree_hal_numerical_type_t;

#define IREE_HAL_ELEMENT_TYPE_VALUE(numerical_type, bit_count) \
  (((uint32_t)(numerical_type) << 24) | (uint32_t)(bit_count))
#define iree_hal_make_element_type(numerical_type, bit_count) \
  (iree_hal_element_type_t)(                                  \
      IREE_HAL_ELEMENT_TYPE_VALUE(numerical_type, bit_count))
#define iree_hal_element_numerical_type(element_type) \
  (iree_hal_numerical_type_t)((uint32_t)(element_type) >> 24)
#define iree_hal_element_bit_count(element_type) \
  (iree_host_size_t)((element_type)&0xFF)
#define iree_hal_element_is_byte_aligned(element_type) \
  (iree_hal_element_bit_count(element_type) % 8 == 0)
#define iree_hal_element_dense_byte_count(element_type) \
  ((iree_hal_element_bit_count(element_type) + 8 - 1) / 8)

// Each element type: a numerical type in the high byte, a bit count low.
#define IREE_RS_ET_(numerical, bits) \
  IREE_HAL_ELEMENT_TYPE_VALUE(IREE_HAL_NUMERICAL_TYPE_##numerical, bits)
enum iree_hal_element_types_t {
  IREE_HAL_ELEMENT_TYPE_NONE = IREE_RS_ET_(UNKNOWN, 0),
  IREE_HAL_ELEMENT_TYPE_OPAQUE_8 = IREE_RS_ET_(UNKNOWN, 8),
  IREE_HAL_ELEMENT_TYPE_OPAQUE_16 = IREE_RS_ET_(UNKNOWN, 16),
  IREE_HAL_ELEMENT_TYPE_OPAQUE_32 = IREE_RS_ET_(UNKNOWN, 32),
  IREE_HAL_ELEMENT_TYPE_OPAQUE_64 = IREE_RS_ET_(UNKNOWN, 64),
  IREE_HAL_ELEMENT_TYPE_BOOL_8 = IREE_RS_ET_(BOOLEAN, 8),
  IREE_HAL_ELEMENT_TYPE_INT_4 = IREE_RS_ET_(INTEGER, 4),
  IREE_HAL_ELEMENT_TYPE_SINT_4 = IREE_RS_ET_(INTEGER_SIGNED, 4),
  IREE_HAL_ELEMENT_TYPE_UINT_4 = IREE_RS_ET_(INTEGER_UNSIGNED, 4),
  IREE_HAL_ELEMENT_TYPE_INT_8 = IREE_RS_ET_(INTEGER, 8),
  IREE_HAL_ELEMENT_TYPE_SINT_8 = IREE_RS_ET_(INTEGER_SIGNED, 8),
  IREE_HAL_ELEMENT_TYPE_UINT_8 = IREE_RS_ET_(INTEGER_UNSIGNED, 8),
  IREE_HAL_ELEMENT_TYPE_INT_16 = IREE_RS_ET_(INTEGER, 16),
  IREE_HAL_ELEMENT_TYPE_SINT_16 = IREE_RS_ET_(INTEGER_SIGNED, 16),
  IREE_HAL_ELEMENT_TYPE_UINT_16 = IREE_RS_ET_(INTEGER_UNSIGNED, 16),
  IREE_HAL_ELEMENT_TYPE_INT_32 = IREE_RS_ET_(INTEGER, 32),
  IREE_HAL_ELEMENT_TYPE_SINT_32 = IREE_RS_ET_(INTEGER_SIGNED, 32),
  IREE_HAL_ELEMENT_TYPE_UINT_32 = IREE_RS_ET_(INTEGER_UNSIGNED, 32),
  IREE_HAL_ELEMENT_TYPE_INT_64 = IREE_RS_ET_(INTEGER, 64),
  IREE_HAL_ELEMENT_TYPE_SINT_64 = IREE_RS_ET_(INTEGER_SIGNED, 64),
  IREE_HAL_ELEMENT_TYPE_UINT_64 = IREE_RS_ET_(INTEGER_UNSIGNED, 64),
  IREE_HAL_ELEMENT_TYPE_FLOAT_16 = IREE_RS_ET_(FLOAT_IEEE, 16),
  IREE_HAL_ELEMENT_TYPE_FLOAT_32 = IREE_RS_ET_(FLOAT_IEEE, 32),
  IREE_HAL_ELEMENT_TYPE_FLOAT_64 = IREE_RS_ET_(FLOAT_IEEE, 64),
  IREE_HAL_ELEMENT_TYPE_BFLOAT_16 = IREE_RS_ET_(FLOAT_BRAIN, 16),
  IREE_HAL_ELEMENT_TYPE_COMPLEX_FLOAT_64 = IREE_RS_ET_(FLOAT_COMPLEX, 64),
  IREE_HAL_ELEMENT_TYPE_COMPLEX_FLOAT_128 = IREE_RS_ET_(FLOAT_COMPLEX, 128),
  IREE_HAL_ELEMENT_TYPE_FLOAT_8_E5M2 = IREE_RS_ET_(FLOAT_8_E5M2, 8),
  IREE_HAL_ELEMENT_TYPE_FLOAT_8_E4M3_FN = IREE_RS_ET_(FLOAT_8_E4M3FN, 8),
  IREE_HAL_ELEMENT_TYPE_FLOAT_8_E5M2_FNUZ = IREE_RS_ET_(FLOAT_8_E5M2_FNUZ, 8),
  IREE_HAL_ELEMENT_TYPE_FLOAT_8_E4M3_FNUZ = IREE_RS_ET_(FLOAT_8_E4M3_FNUZ, 8),
  IREE_HAL_ELEMENT_TYPE_FLOAT_8_E8M0_FNU = IREE_RS_ET_(FLOAT_8_E8M0_FNU, 8),
};
typedef uint32_t iree_hal_element_type_t;

enum iree_hal_encoding_types_t {
  IREE_HAL_ENCODING_TYPE_OPAQUE = 0,
  IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR = 1,
};
typedef uint32_t iree_hal_encoding_type_t;

typedef iree_device_size_t iree_hal_dim_t;
#define PRIdim PRIdsz

//===----------------------------------------------------------------------===//
// Devices, drivers and allocators
//===----------------------------------------------------------------------===//

// The registry of every driver this build has (local-sync, local-task,
// cuda, hip).
IREE_API_EXPORT iree_hal_driver_registry_t* iree_hal_driver_registry_default(
    void);

IREE_API_EXPORT void iree_hal_device_retain(iree_hal_device_t* device);
IREE_API_EXPORT void iree_hal_device_release(iree_hal_device_t* device);
// The device's allocator (borrowed, valid while the device lives).
IREE_API_EXPORT iree_hal_allocator_t* iree_hal_device_allocator(
    iree_hal_device_t* device);
IREE_API_EXPORT iree_status_t iree_hal_device_transfer_h2d(
    iree_hal_device_t* device, const void* source, iree_hal_buffer_t* target,
    iree_device_size_t target_offset, iree_device_size_t data_length,
    iree_hal_transfer_buffer_flags_t flags, iree_timeout_t timeout);
IREE_API_EXPORT iree_status_t iree_hal_device_transfer_d2h(
    iree_hal_device_t* device, iree_hal_buffer_t* source,
    iree_device_size_t source_offset, void* target,
    iree_device_size_t data_length, iree_hal_transfer_buffer_flags_t flags,
    iree_timeout_t timeout);

IREE_API_EXPORT void iree_hal_allocator_retain(iree_hal_allocator_t* allocator);
IREE_API_EXPORT void iree_hal_allocator_release(
    iree_hal_allocator_t* allocator);
IREE_API_EXPORT iree_status_t iree_hal_allocator_allocate_buffer(
    iree_hal_allocator_t* allocator, iree_hal_buffer_params_t params,
    iree_device_size_t allocation_size, iree_hal_buffer_t** out_buffer);
// A host-memory allocator as local devices use (the identifier, data and
// host allocators are accepted; buffers come from the library's heap).
IREE_API_EXPORT iree_status_t iree_hal_allocator_create_heap(
    iree_string_view_t identifier, iree_allocator_t data_allocator,
    iree_allocator_t host_allocator, iree_hal_allocator_t** out_allocator);

// Declared again by iree/async headers (identical typedefs).
typedef struct iree_async_proactor_pool_t iree_async_proactor_pool_t;
typedef struct iree_async_frontier_tracker_t iree_async_frontier_tracker_t;

// What device constructors take besides their driver's own parameters.
typedef struct iree_hal_device_create_params_t {
  // Extension chain; NULL.
  const void* next;
  // Shared pool for asynchronous I/O; accepted (local devices of this
  // library do not poll proactors) and may be NULL.
  iree_async_proactor_pool_t* proactor_pool;
} iree_hal_device_create_params_t;

static inline iree_hal_device_create_params_t
iree_hal_device_create_params_default(void) {
  iree_hal_device_create_params_t params;
  memset(&params, 0, sizeof(params));
  return params;
}

//===----------------------------------------------------------------------===//
// Device groups
//===----------------------------------------------------------------------===//

// The devices a `hal` module serves (iree/hal/device_group.h).
typedef struct iree_hal_device_group_t iree_hal_device_group_t;

// A group holding |device| alone; the frontier tracker may be NULL.
IREE_API_EXPORT iree_status_t iree_hal_device_group_create_from_device(
    iree_hal_device_t* device, iree_async_frontier_tracker_t* frontier_tracker,
    iree_allocator_t host_allocator, iree_hal_device_group_t** out_group);
IREE_API_EXPORT void iree_hal_device_group_retain(
    iree_hal_device_group_t* group);
IREE_API_EXPORT void iree_hal_device_group_release(
    iree_hal_device_group_t* group);
IREE_API_EXPORT iree_host_size_t
iree_hal_device_group_device_count(const iree_hal_device_group_t* group);
// Borrowed; NULL when |index| is out of range.
IREE_API_EXPORT iree_hal_device_t* iree_hal_device_group_device_at(
    const iree_hal_device_group_t* group, iree_host_size_t index);

//===----------------------------------------------------------------------===//
// Semaphores, fences and queue-ordered allocation
//===----------------------------------------------------------------------===//

enum iree_hal_semaphore_flag_bits_t {
  IREE_HAL_SEMAPHORE_FLAG_NONE = 0ull,
  IREE_HAL_SEMAPHORE_FLAG_DEVICE_LOCAL = 1ull << 0,
  IREE_HAL_SEMAPHORE_FLAG_HOST_INTERRUPT = 1ull << 1,
  IREE_HAL_SEMAPHORE_FLAG_EXPORTABLE = 1ull << 2,
  IREE_HAL_SEMAPHORE_FLAG_EXPORTABLE_TIMEPOINTS = 1ull << 3,
  IREE_HAL_SEMAPHORE_FLAG_SINGLE_PRODUCER = 1ull << 4,
  IREE_HAL_SEMAPHORE_FLAG_DEFAULT =
      IREE_HAL_SEMAPHORE_FLAG_HOST_INTERRUPT |
      IREE_HAL_SEMAPHORE_FLAG_EXPORTABLE_TIMEPOINTS,
};
typedef uint64_t iree_hal_semaphore_flags_t;

// How a waiter waits (hints; every wait here blocks the thread).
enum iree_async_wait_flag_bits_e {
  IREE_ASYNC_WAIT_FLAG_NONE = 0u,
  IREE_ASYNC_WAIT_FLAG_YIELD = 1u << 0,
  IREE_ASYNC_WAIT_FLAG_ACTIVE = 1u << 1,
};
typedef uint32_t iree_async_wait_flags_t;

// Semaphores and the payload values to wait for or signal.
typedef struct iree_hal_semaphore_list_t {
  iree_host_size_t count;
  iree_hal_semaphore_t** semaphores;
  uint64_t* payload_values;
} iree_hal_semaphore_list_t;

static inline iree_hal_semaphore_list_t iree_hal_semaphore_list_empty(void) {
  iree_hal_semaphore_list_t list = {0, NULL, NULL};
  return list;
}

typedef struct iree_async_frontier_t iree_async_frontier_t;

IREE_API_EXPORT iree_status_t iree_hal_semaphore_create(
    iree_hal_device_t* device, iree_hal_queue_affinity_t queue_affinity,
    uint64_t initial_value, iree_hal_semaphore_flags_t flags,
    iree_hal_semaphore_t** out_semaphore);
IREE_API_EXPORT void iree_hal_semaphore_retain(iree_hal_semaphore_t* semaphore);
IREE_API_EXPORT void iree_hal_semaphore_release(
    iree_hal_semaphore_t* semaphore);
IREE_API_EXPORT iree_status_t
iree_hal_semaphore_query(iree_hal_semaphore_t* semaphore, uint64_t* out_value);
IREE_API_EXPORT iree_status_t
iree_hal_semaphore_signal(iree_hal_semaphore_t* semaphore, uint64_t new_value,
                          const iree_async_frontier_t* frontier);
IREE_API_EXPORT void iree_hal_semaphore_fail(iree_hal_semaphore_t* semaphore,
                                             iree_status_t status);
IREE_API_EXPORT iree_status_t
iree_hal_semaphore_wait(iree_hal_semaphore_t* semaphore, uint64_t value,
                        iree_timeout_t timeout, iree_async_wait_flags_t flags);

IREE_API_EXPORT iree_status_t iree_hal_fence_create(
    iree_host_size_t capacity, iree_allocator_t host_allocator,
    iree_hal_fence_t** out_fence);
IREE_API_EXPORT iree_status_t iree_hal_fence_create_at(
    iree_hal_semaphore_t* semaphore, uint64_t value,
    iree_allocator_t host_allocator, iree_hal_fence_t** out_fence);
IREE_API_EXPORT void iree_hal_fence_retain(iree_hal_fence_t* fence);
IREE_API_EXPORT void iree_hal_fence_release(iree_hal_fence_t* fence);
// The fence's semaphores and values (valid while the fence lives).
IREE_API_EXPORT iree_hal_semaphore_list_t
iree_hal_fence_semaphore_list(iree_hal_fence_t* fence);
IREE_API_EXPORT iree_host_size_t
iree_hal_fence_timepoint_count(const iree_hal_fence_t* fence);
// Adds a timepoint; only before the fence is shared.
IREE_API_EXPORT iree_status_t iree_hal_fence_insert(
    iree_hal_fence_t* fence, iree_hal_semaphore_t* semaphore, uint64_t value);
// OK when reached, DEFERRED while pending, or the failure.
IREE_API_EXPORT iree_status_t iree_hal_fence_query(iree_hal_fence_t* fence);
IREE_API_EXPORT iree_status_t iree_hal_fence_signal(iree_hal_fence_t* fence);
IREE_API_EXPORT void iree_hal_fence_fail(iree_hal_fence_t* fence,
                                         iree_status_t signal_status);
IREE_API_EXPORT iree_status_t
iree_hal_fence_wait(iree_hal_fence_t* fence, iree_timeout_t timeout,
                    iree_async_wait_flags_t flags);

typedef struct iree_hal_pool_t iree_hal_pool_t;

typedef uint64_t iree_hal_alloca_flags_t;
enum iree_hal_alloca_flag_bits_t {
  IREE_HAL_ALLOCA_FLAG_NONE = 0,
};

// A buffer allocated once |wait_semaphore_list| is reached; signals
// |signal_semaphore_list| when it is ready.
IREE_API_EXPORT iree_status_t iree_hal_device_queue_alloca(
    iree_hal_device_t* device, iree_hal_queue_affinity_t queue_affinity,
    const iree_hal_semaphore_list_t wait_semaphore_list,
    const iree_hal_semaphore_list_t signal_semaphore_list,
    iree_hal_pool_t* pool, iree_hal_buffer_params_t params,
    iree_device_size_t allocation_size, iree_hal_alloca_flags_t flags,
    iree_hal_buffer_t** IREE_RESTRICT out_buffer);

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

IREE_API_EXPORT void iree_hal_buffer_retain(iree_hal_buffer_t* buffer);
IREE_API_EXPORT void iree_hal_buffer_release(iree_hal_buffer_t* buffer);
IREE_API_EXPORT iree_status_t iree_hal_buffer_subspan(
    iree_hal_buffer_t* buffer, iree_device_size_t byte_offset,
    iree_device_size_t byte_length, iree_allocator_t host_allocator,
    iree_hal_buffer_t** out_buffer);
IREE_API_EXPORT iree_device_size_t
iree_hal_buffer_allocation_size(const iree_hal_buffer_t* buffer);
IREE_API_EXPORT iree_device_size_t
iree_hal_buffer_byte_offset(const iree_hal_buffer_t* buffer);
IREE_API_EXPORT iree_device_size_t
iree_hal_buffer_byte_length(const iree_hal_buffer_t* buffer);
IREE_API_EXPORT iree_hal_memory_type_t
iree_hal_buffer_memory_type(const iree_hal_buffer_t* buffer);
IREE_API_EXPORT iree_hal_memory_access_t
iree_hal_buffer_allowed_access(const iree_hal_buffer_t* buffer);
IREE_API_EXPORT iree_hal_buffer_usage_t
iree_hal_buffer_allowed_usage(const iree_hal_buffer_t* buffer);
IREE_API_EXPORT iree_status_t iree_hal_buffer_map_zero(
    iree_hal_buffer_t* buffer, iree_device_size_t byte_offset,
    iree_device_size_t byte_length);
IREE_API_EXPORT iree_status_t iree_hal_buffer_map_fill(
    iree_hal_buffer_t* buffer, iree_device_size_t byte_offset,
    iree_device_size_t byte_length, const void* pattern,
    iree_host_size_t pattern_length);
IREE_API_EXPORT iree_status_t iree_hal_buffer_map_read(
    iree_hal_buffer_t* source_buffer, iree_device_size_t source_offset,
    void* target_buffer, iree_device_size_t data_length);
IREE_API_EXPORT iree_status_t iree_hal_buffer_map_write(
    iree_hal_buffer_t* target_buffer, iree_device_size_t target_offset,
    const void* source_buffer, iree_device_size_t data_length);
IREE_API_EXPORT iree_status_t iree_hal_buffer_map_copy(
    iree_hal_buffer_t* source_buffer, iree_device_size_t source_offset,
    iree_hal_buffer_t* target_buffer, iree_device_size_t target_offset,
    iree_device_size_t data_length);
// Maps a range for host access until iree_hal_buffer_unmap_range.
IREE_API_EXPORT iree_status_t iree_hal_buffer_map_range(
    iree_hal_buffer_t* buffer, iree_hal_mapping_mode_t mapping_mode,
    iree_hal_memory_access_t memory_access, iree_device_size_t byte_offset,
    iree_device_size_t byte_length,
    iree_hal_buffer_mapping_t* out_buffer_mapping);
IREE_API_EXPORT iree_status_t
iree_hal_buffer_unmap_range(iree_hal_buffer_mapping_t* buffer_mapping);

//===----------------------------------------------------------------------===//
// Buffer views
//===----------------------------------------------------------------------===//

IREE_API_EXPORT iree_status_t iree_hal_buffer_view_create(
    iree_hal_buffer_t* buffer, iree_host_size_t shape_rank,
    const iree_hal_dim_t* shape, iree_hal_element_type_t element_type,
    iree_hal_encoding_type_t encoding_type, iree_allocator_t host_allocator,
    iree_hal_buffer_view_t** out_buffer_view);
IREE_API_EXPORT iree_status_t iree_hal_buffer_view_create_like(
    iree_hal_buffer_t* buffer, iree_hal_buffer_view_t* like_view,
    iree_allocator_t host_allocator, iree_hal_buffer_view_t** out_buffer_view);
// A new buffer of |device_allocator| holding |initial_data|, viewed as the
// shape and types given.
IREE_API_EXPORT iree_status_t iree_hal_buffer_view_allocate_buffer_copy(
    iree_hal_device_t* device, iree_hal_allocator_t* device_allocator,
    iree_host_size_t shape_rank, const iree_hal_dim_t* shape,
    iree_hal_element_type_t element_type,
    iree_hal_encoding_type_t encoding_type,
    iree_hal_buffer_params_t buffer_params, iree_const_byte_span_t initial_data,
    iree_hal_buffer_view_t** out_buffer_view);
IREE_API_EXPORT void iree_hal_buffer_view_retain(
    iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT void iree_hal_buffer_view_release(
    iree_hal_buffer_view_t* buffer_view);
// The viewed buffer (borrowed, valid while the view lives).
IREE_API_EXPORT iree_hal_buffer_t* iree_hal_buffer_view_buffer(
    const iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT iree_host_size_t
iree_hal_buffer_view_shape_rank(const iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT const iree_hal_dim_t* iree_hal_buffer_view_shape_dims(
    const iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT iree_hal_dim_t iree_hal_buffer_view_shape_dim(
    const iree_hal_buffer_view_t* buffer_view, iree_host_size_t index);
IREE_API_EXPORT iree_status_t iree_hal_buffer_view_shape(
    const iree_hal_buffer_view_t* buffer_view, iree_host_size_t rank_capacity,
    iree_hal_dim_t* out_shape, iree_host_size_t* out_shape_rank);
IREE_API_EXPORT iree_host_size_t
iree_hal_buffer_view_element_count(const iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT iree_hal_element_type_t
iree_hal_buffer_view_element_type(const iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT iree_host_size_t
iree_hal_buffer_view_element_size(const iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT iree_hal_encoding_type_t
iree_hal_buffer_view_encoding_type(const iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT iree_device_size_t
iree_hal_buffer_view_byte_length(const iree_hal_buffer_view_t* buffer_view);
// The view's text (`4xf32=1 2 3 4`), elided past |max_element_count|.
IREE_API_EXPORT iree_status_t iree_hal_buffer_view_format(
    const iree_hal_buffer_view_t* buffer_view,
    iree_host_size_t max_element_count, iree_host_size_t buffer_capacity,
    char* buffer, iree_host_size_t* out_buffer_length);
// Writes the view's text to |file| through stdio (no newline).
IREE_API_EXPORT iree_status_t iree_hal_buffer_view_fprint(
    FILE* file, const iree_hal_buffer_view_t* buffer_view,
    iree_host_size_t max_element_count, iree_allocator_t host_allocator);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_HAL_API_H_
