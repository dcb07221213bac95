// iree-rs C API: `iree_runtime_call_t`, a function of a session with its
// input and output lists. Names and layouts follow upstream IREE's
// `iree/runtime/call.h`.

#ifndef IREE_RUNTIME_CALL_H_
#define IREE_RUNTIME_CALL_H_

#include <stdint.h>

#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_runtime_session_t iree_runtime_session_t;

enum iree_runtime_call_flag_bits_t {
  IREE_RUNTIME_CALL_FLAG_RESERVED = 0u,
};
typedef uint32_t iree_runtime_call_flags_t;

typedef struct iree_runtime_call_t {
  iree_runtime_session_t* session;
  iree_vm_function_t function;
  iree_vm_list_t* inputs;
  iree_vm_list_t* outputs;
} iree_runtime_call_t;

IREE_API_EXPORT iree_status_t iree_runtime_call_initialize(
    iree_runtime_session_t* session, iree_vm_function_t function,
    iree_runtime_call_t* out_call);
IREE_API_EXPORT iree_status_t iree_runtime_call_initialize_by_name(
    iree_runtime_session_t* session, iree_string_view_t full_name,
    iree_runtime_call_t* out_call);
IREE_API_EXPORT void iree_runtime_call_deinitialize(iree_runtime_call_t* call);
IREE_API_EXPORT void iree_runtime_call_reset(iree_runtime_call_t* call);
IREE_API_EXPORT iree_vm_list_t* iree_runtime_call_inputs(
    const iree_runtime_call_t* call);
IREE_API_EXPORT iree_vm_list_t* iree_runtime_call_outputs(
    const iree_runtime_call_t* call);
IREE_API_EXPORT iree_status_t iree_runtime_call_invoke(
    iree_runtime_call_t* call, iree_runtime_call_flags_t flags);
IREE_API_EXPORT iree_status_t iree_runtime_call_inputs_push_back_buffer_view(
    iree_runtime_call_t* call, iree_hal_buffer_view_t* buffer_view);
IREE_API_EXPORT iree_status_t iree_runtime_call_outputs_pop_front_buffer_view(
    iree_runtime_call_t* call, iree_hal_buffer_view_t** out_buffer_view);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_RUNTIME_CALL_H_
