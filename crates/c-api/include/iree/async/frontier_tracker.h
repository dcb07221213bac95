// iree-rs C API: frontier trackers (`iree/async/frontier_tracker.h` of
// upstream IREE), as device groups take them. This library's devices order
// their work without one: a tracker here is a counted handle.

#ifndef IREE_ASYNC_FRONTIER_TRACKER_H_
#define IREE_ASYNC_FRONTIER_TRACKER_H_

#include "iree/base/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_async_frontier_tracker_t iree_async_frontier_tracker_t;

typedef struct iree_async_frontier_tracker_options_t {
  // Most axes the causal domain registers.
  uint32_t axis_table_capacity;
  // Generation of the causal domain.
  uint8_t session_epoch;
  // This machine's ordinal in the causal domain.
  uint8_t machine_index;
} iree_async_frontier_tracker_options_t;

static inline iree_async_frontier_tracker_options_t
iree_async_frontier_tracker_options_default(void) {
  iree_async_frontier_tracker_options_t options;
  memset(&options, 0, sizeof(options));
  options.axis_table_capacity = 256;
  options.session_epoch = 1;
  options.machine_index = 0;
  return options;
}

IREE_API_EXPORT iree_status_t iree_async_frontier_tracker_create(
    iree_async_frontier_tracker_options_t options, iree_allocator_t allocator,
    iree_async_frontier_tracker_t** out_tracker);
IREE_API_EXPORT void iree_async_frontier_tracker_retain(
    iree_async_frontier_tracker_t* tracker);
IREE_API_EXPORT void iree_async_frontier_tracker_release(
    iree_async_frontier_tracker_t* tracker);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_ASYNC_FRONTIER_TRACKER_H_
