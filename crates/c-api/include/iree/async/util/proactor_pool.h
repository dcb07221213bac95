// iree-rs C API: proactor pools (`iree/async/util/proactor_pool.h` of
// upstream IREE). Device constructors take one; this library's local
// devices accept it and poll nothing, so a pool here is a counted handle
// remembering its nodes.

#ifndef IREE_ASYNC_UTIL_PROACTOR_POOL_H_
#define IREE_ASYNC_UTIL_PROACTOR_POOL_H_

#include "iree/async/proactor.h"
#include "iree/base/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

// Makes the threads that poll a pool's proactors (never called here).
typedef struct iree_async_proactor_pool_runner_factory_t {
  void* user_data;
  iree_status_t (*create)(void* user_data, iree_async_proactor_t* proactor,
                          uint32_t node_id, iree_allocator_t allocator,
                          void** out_runner);
  void (*request_stop)(void* user_data, void** runners, iree_host_size_t count);
  void (*destroy)(void* user_data, void* runner);
} iree_async_proactor_pool_runner_factory_t;

typedef struct iree_async_proactor_pool_options_t {
  // Applied to each proactor of the pool.
  iree_async_proactor_options_t proactor_options;
  // Runner factory (all NULL: no runners).
  iree_async_proactor_pool_runner_factory_t runner;
} iree_async_proactor_pool_options_t;

// Default proactor options and no runner.
IREE_API_EXPORT iree_async_proactor_pool_options_t
iree_async_proactor_pool_options_default(void);

typedef struct iree_async_proactor_pool_t iree_async_proactor_pool_t;

// A pool for |node_count| NUMA nodes (|node_ids|, or 0..node_count-1 when
// NULL).
IREE_API_EXPORT iree_status_t iree_async_proactor_pool_create(
    iree_host_size_t node_count, const uint32_t* node_ids,
    iree_async_proactor_pool_options_t options, iree_allocator_t allocator,
    iree_async_proactor_pool_t** out_pool);
IREE_API_EXPORT void iree_async_proactor_pool_retain(
    iree_async_proactor_pool_t* pool);
IREE_API_EXPORT void iree_async_proactor_pool_release(
    iree_async_proactor_pool_t* pool);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_ASYNC_UTIL_PROACTOR_POOL_H_
