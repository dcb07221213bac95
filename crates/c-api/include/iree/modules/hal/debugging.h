// iree-rs C API: debug sinks of the `hal` module
// (`iree/modules/hal/debugging.h` of upstream IREE): where
// `hal.buffer_view.trace` (what `flow.tensor.trace` compiles to) goes.

#ifndef IREE_MODULES_HAL_DEBUGGING_H_
#define IREE_MODULES_HAL_DEBUGGING_H_

#include <stdio.h>

#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

// Called once the module no longer uses the sink.
typedef void(IREE_API_PTR* iree_hal_module_debug_sink_release_callback_fn_t)(
    void* user_data);

typedef struct iree_hal_module_debug_sink_release_callback_t {
  iree_hal_module_debug_sink_release_callback_fn_t fn;
  void* user_data;
} iree_hal_module_debug_sink_release_callback_t;

// Receives each trace: its key and the traced buffer views (borrowed for
// the call). An error fails the traced call.
typedef iree_status_t(
    IREE_API_PTR* iree_hal_module_buffer_view_trace_callback_fn_t)(
    void* user_data, iree_string_view_t key, iree_host_size_t buffer_view_count,
    iree_hal_buffer_view_t** buffer_views, iree_allocator_t host_allocator);

typedef struct iree_hal_module_buffer_view_trace_callback_t {
  iree_hal_module_buffer_view_trace_callback_fn_t fn;
  void* user_data;
} iree_hal_module_buffer_view_trace_callback_t;

typedef struct iree_hal_module_debug_sink_t {
  iree_hal_module_debug_sink_release_callback_t release;
  // NULL fn: traces are dropped.
  iree_hal_module_buffer_view_trace_callback_t buffer_view_trace;
} iree_hal_module_debug_sink_t;

// Drops every trace.
IREE_API_EXPORT iree_hal_module_debug_sink_t
iree_hal_module_debug_sink_null(void);

// Writes each trace to |file| through stdio: a `=== key ===` line, each
// buffer view in full on a line of its own, then an empty line.
IREE_API_EXPORT iree_hal_module_debug_sink_t
iree_hal_module_debug_sink_stdio(FILE* file);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_MODULES_HAL_DEBUGGING_H_
