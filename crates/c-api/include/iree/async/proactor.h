// iree-rs C API: proactor options (`iree/async/proactor.h` of upstream
// IREE), as proactor pools take them. Proactors themselves are not part of
// this library: its local devices do no asynchronous I/O of their own.

#ifndef IREE_ASYNC_PROACTOR_H_
#define IREE_ASYNC_PROACTOR_H_

#include "iree/base/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_async_proactor_t iree_async_proactor_t;

// Backend features a proactor may use (a bit set; all allowed by default).
typedef uint32_t iree_async_proactor_capabilities_t;
#define IREE_ASYNC_PROACTOR_CAPABILITY_ALL (~0u)

typedef enum iree_async_proactor_threading_mode_e {
  // Polled from the thread that created it.
  IREE_ASYNC_PROACTOR_THREADING_SAME_THREAD = 0,
  // Created on one thread, polled from another.
  IREE_ASYNC_PROACTOR_THREADING_CROSS_THREAD = 1,
} iree_async_proactor_threading_mode_t;

typedef struct iree_async_proactor_options_t {
  // Hint: most operations in flight at once (0: the backend's default).
  iree_host_size_t max_concurrent_operations;
  // Name for diagnostics (copied).
  iree_string_view_t debug_name;
  // Capabilities the backend may use.
  iree_async_proactor_capabilities_t allowed_capabilities;
  // Entries of the cross-proactor message pool (0: default).
  iree_host_size_t message_pool_capacity;
  iree_async_proactor_threading_mode_t threading_mode;
} iree_async_proactor_options_t;

static inline iree_async_proactor_options_t iree_async_proactor_options_default(
    void) {
  iree_async_proactor_options_t options;
  memset(&options, 0, sizeof(options));
  options.allowed_capabilities = IREE_ASYNC_PROACTOR_CAPABILITY_ALL;
  return options;
}

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_ASYNC_PROACTOR_H_
