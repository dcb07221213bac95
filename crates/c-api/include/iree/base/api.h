// iree-rs C API: the base vocabulary (spans, string views, allocators,
// statuses, time).
//
// Written for iree-rs. Every type, function and macro here has the name,
// layout and meaning it has in upstream IREE's `iree/base/api.h`, so programs
// written against upstream's headers compile and link unchanged against
// `libiree_runtime`. Only what the library exports is declared.

#ifndef IREE_BASE_API_H_
#define IREE_BASE_API_H_

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iree/base/attributes.h"
#include "iree/base/config.h"
#include "iree/base/target_platform.h"

#if defined(IREE_PLATFORM_WINDOWS)
#include <malloc.h>
#define iree_alloca(sz) _alloca(sz)
#else
#include <alloca.h>
#define iree_alloca(sz) alloca(sz)
#endif

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

//===----------------------------------------------------------------------===//
// Alignment and small helpers
//===----------------------------------------------------------------------===//

#define IREE_ARRAYSIZE(arr) (sizeof(arr) / sizeof(arr[0]))
#define iree_min(lhs, rhs) ((lhs) <= (rhs) ? (lhs) : (rhs))
#define iree_max(lhs, rhs) ((lhs) <= (rhs) ? (rhs) : (lhs))
#define iree_max_align_t 16
#define iree_alignof(x) __alignof__(x)
#define iree_alignas(x) __attribute__((aligned(x)))
#define iree_any_bit_set(lhs, rhs) (((lhs) & (rhs)) != 0)
#define iree_all_bits_set(lhs, rhs) (((lhs) & (rhs)) == (rhs))

// Rounds |value| up to a multiple of the power-of-two |alignment|.
static inline iree_host_size_t iree_host_align(iree_host_size_t value,
                                               iree_host_size_t alignment) {
  return (value + (alignment - 1)) & ~(alignment - 1);
}

// Rounds |value| up to a multiple of the power-of-two |alignment|.
static inline iree_device_size_t iree_device_align(
    iree_device_size_t value, iree_device_size_t alignment) {
  return (value + (alignment - 1)) & ~(alignment - 1);
}

#define iree_sizeof_struct(t) iree_host_align(sizeof(t), iree_max_align_t)

//===----------------------------------------------------------------------===//
// Assertions (compiled out unless the program is built without NDEBUG)
//===----------------------------------------------------------------------===//

#if defined(NDEBUG)
#define IREE_ASSERT(condition, ...) \
  while (false && (condition)) {    \
  }
#else
#include <assert.h>
#define IREE_ASSERT(condition, ...) assert(condition)
#endif  // NDEBUG
#define IREE_ASSERT_ARGUMENT(name) IREE_ASSERT(name)
#define IREE_ASSERT_TRUE(expr, ...) IREE_ASSERT(!!(expr))
#define IREE_ASSERT_FALSE(expr, ...) IREE_ASSERT(!(expr))
#define IREE_ASSERT_EQ(a, b, ...) IREE_ASSERT((a) == (b))
#define IREE_ASSERT_NE(a, b, ...) IREE_ASSERT((a) != (b))
#define IREE_ASSERT_LE(a, b, ...) IREE_ASSERT((a) <= (b))
#define IREE_ASSERT_LT(a, b, ...) IREE_ASSERT((a) < (b))
#define IREE_ASSERT_GE(a, b, ...) IREE_ASSERT((a) >= (b))
#define IREE_ASSERT_GT(a, b, ...) IREE_ASSERT((a) > (b))
#define IREE_ASSERT_ALIGNED(ptr, alignment) \
  IREE_ASSERT(((uintptr_t)(ptr) & ((alignment)-1)) == 0)
#define IREE_CHECK(condition, ...) \
  do {                             \
    if (!(condition)) abort();     \
  } while (false)

// Tracing is not compiled into this library; the zone macros vanish.
#define IREE_TRACE(expr)
#define IREE_TRACE_ZONE_BEGIN(zone_id)
#define IREE_TRACE_ZONE_BEGIN_NAMED(zone_id, name_literal)
#define IREE_TRACE_ZONE_END(zone_id)
#define IREE_TRACE_ZONE_APPEND_TEXT(...)
#define IREE_TRACE_ZONE_APPEND_VALUE_I64(zone_id, value)
#define IREE_TRACE_SCOPE()
#define IREE_TRACE_SCOPE_NAMED(name_literal)
#define IREE_TRACE_SET_THREAD_NAME(name)
#define IREE_RETURN_AND_END_ZONE_IF_ERROR(zone_id, ...) \
  IREE_RETURN_IF_ERROR(__VA_ARGS__)
typedef uint32_t iree_zone_id_t;

//===----------------------------------------------------------------------===//
// Byte spans
//===----------------------------------------------------------------------===//

typedef struct iree_byte_span_t {
  uint8_t* data;
  iree_host_size_t data_length;
} iree_byte_span_t;

static inline iree_byte_span_t iree_make_byte_span(
    void* data, iree_host_size_t data_length) {
  iree_byte_span_t span = {(uint8_t*)data, data_length};
  return span;
}
static inline iree_byte_span_t iree_byte_span_empty(void) {
  iree_byte_span_t span = {NULL, 0};
  return span;
}
static inline bool iree_byte_span_is_empty(iree_byte_span_t span) {
  return span.data == NULL || span.data_length == 0;
}

typedef struct iree_const_byte_span_t {
  const uint8_t* data;
  iree_host_size_t data_length;
} iree_const_byte_span_t;

static inline iree_const_byte_span_t iree_make_const_byte_span(
    const void* data, iree_host_size_t data_length) {
  iree_const_byte_span_t span = {(const uint8_t*)data, data_length};
  return span;
}
static inline iree_const_byte_span_t iree_const_byte_span_empty(void) {
  iree_const_byte_span_t span = {NULL, 0};
  return span;
}
static inline bool iree_const_byte_span_is_empty(iree_const_byte_span_t span) {
  return span.data == NULL || span.data_length == 0;
}
static inline iree_const_byte_span_t iree_const_cast_byte_span(
    iree_byte_span_t span) {
  return iree_make_const_byte_span(span.data, span.data_length);
}
static inline iree_byte_span_t iree_cast_const_byte_span(
    iree_const_byte_span_t span) {
  return iree_make_byte_span((void*)span.data, span.data_length);
}

//===----------------------------------------------------------------------===//
// String views
//===----------------------------------------------------------------------===//

#define IREE_STRING_VIEW_NPOS IREE_HOST_SIZE_MAX

// A non-owning, not necessarily NUL-terminated string.
typedef struct iree_string_view_t {
  const char* data;
  iree_host_size_t size;
} iree_string_view_t;

static inline iree_string_view_t iree_string_view_empty(void) {
  iree_string_view_t view = {NULL, 0};
  return view;
}
#define iree_string_view_is_empty(sv) (((sv).data == NULL) || ((sv).size == 0))
static inline iree_string_view_t iree_make_string_view(
    const char* str, iree_host_size_t str_length) {
  iree_string_view_t view = {str, str_length};
  return view;
}
static inline iree_string_view_t iree_make_cstring_view(const char* str) {
  iree_string_view_t view = {str, str ? strlen(str) : 0};
  return view;
}
#define iree_string_view_literal(str) \
  { (str), IREE_ARRAYSIZE(str) - 1 }
#define IREE_SV(cstr) iree_make_cstring_view(cstr)
#define IREE_SVL(cstr) iree_string_view_literal(cstr)

typedef struct iree_mutable_string_view_t {
  char* data;
  iree_host_size_t size;
} iree_mutable_string_view_t;

// A key/value pair of string views.
typedef struct iree_string_pair_t {
  union {
    iree_string_view_t first;
    iree_string_view_t key;
  };
  union {
    iree_string_view_t second;
    iree_string_view_t value;
  };
} iree_string_pair_t;

static inline iree_string_pair_t iree_string_pair_empty(void) {
  iree_string_pair_t pair;
  pair.first = iree_string_view_empty();
  pair.second = iree_string_view_empty();
  return pair;
}
static inline iree_string_pair_t iree_make_string_pair(
    iree_string_view_t first, iree_string_view_t second) {
  iree_string_pair_t pair;
  pair.first = first;
  pair.second = second;
  return pair;
}
static inline iree_string_pair_t iree_make_cstring_pair(const char* first,
                                                        const char* second) {
  return iree_make_string_pair(iree_make_cstring_view(first),
                               iree_make_cstring_view(second));
}

typedef struct iree_string_pair_list_t {
  iree_host_size_t count;
  const iree_string_pair_t* pairs;
} iree_string_pair_list_t;

typedef struct iree_string_view_list_t {
  iree_host_size_t count;
  const iree_string_view_t* values;
} iree_string_view_list_t;

IREE_API_EXPORT bool iree_string_view_equal(iree_string_view_t lhs,
                                            iree_string_view_t rhs);
IREE_API_EXPORT int iree_string_view_compare(iree_string_view_t lhs,
                                             iree_string_view_t rhs);
IREE_API_EXPORT bool iree_string_view_starts_with(iree_string_view_t value,
                                                  iree_string_view_t prefix);
IREE_API_EXPORT bool iree_string_view_ends_with(iree_string_view_t value,
                                                iree_string_view_t suffix);
IREE_API_EXPORT iree_host_size_t iree_string_view_find_char(
    iree_string_view_t value, char c, iree_host_size_t pos);
IREE_API_EXPORT iree_string_view_t iree_string_view_substr(
    iree_string_view_t value, iree_host_size_t pos, iree_host_size_t n);
IREE_API_EXPORT intptr_t iree_string_view_split(iree_string_view_t value,
                                                char split_char,
                                                iree_string_view_t* out_lhs,
                                                iree_string_view_t* out_rhs);
IREE_API_EXPORT iree_host_size_t iree_string_view_append_to_buffer(
    iree_string_view_t source_value, iree_string_view_t* target_value,
    char* buffer);

//===----------------------------------------------------------------------===//
// Statuses
//===----------------------------------------------------------------------===//

typedef struct iree_allocator_t iree_allocator_t;

#define IREE_STATUS_FEATURE_SOURCE_LOCATION (1 << 0)
#define IREE_STATUS_FEATURE_ANNOTATIONS (1 << 1)
#define IREE_STATUS_FEATURE_STACK_TRACE (1 << 2)

#if !defined(IREE_STATUS_FEATURES)
#if IREE_STATUS_MODE == 1
#define IREE_STATUS_FEATURES (IREE_STATUS_FEATURE_SOURCE_LOCATION)
#elif IREE_STATUS_MODE == 2
#define IREE_STATUS_FEATURES \
  (IREE_STATUS_FEATURE_SOURCE_LOCATION | IREE_STATUS_FEATURE_ANNOTATIONS)
#elif IREE_STATUS_MODE == 3
#define IREE_STATUS_FEATURES                                               \
  (IREE_STATUS_FEATURE_SOURCE_LOCATION | IREE_STATUS_FEATURE_ANNOTATIONS | \
   IREE_STATUS_FEATURE_STACK_TRACE)
#else
#define IREE_STATUS_FEATURES 0
#endif
#endif  // !IREE_STATUS_FEATURES

typedef enum iree_status_code_e {
  IREE_STATUS_OK = 0,
  IREE_STATUS_CANCELLED = 1,
  IREE_STATUS_UNKNOWN = 2,
  IREE_STATUS_INVALID_ARGUMENT = 3,
  IREE_STATUS_DEADLINE_EXCEEDED = 4,
  IREE_STATUS_NOT_FOUND = 5,
  IREE_STATUS_ALREADY_EXISTS = 6,
  IREE_STATUS_PERMISSION_DENIED = 7,
  IREE_STATUS_RESOURCE_EXHAUSTED = 8,
  IREE_STATUS_FAILED_PRECONDITION = 9,
  IREE_STATUS_ABORTED = 10,
  IREE_STATUS_OUT_OF_RANGE = 11,
  IREE_STATUS_UNIMPLEMENTED = 12,
  IREE_STATUS_INTERNAL = 13,
  IREE_STATUS_UNAVAILABLE = 14,
  IREE_STATUS_DATA_LOSS = 15,
  IREE_STATUS_UNAUTHENTICATED = 16,
  IREE_STATUS_DEFERRED = 17,
  IREE_STATUS_INCOMPATIBLE = 18,
  IREE_STATUS_CODE_MASK = 0x1Fu,
} iree_status_code_t;

// A status: NULL (0) is OK; otherwise the low 5 bits hold the code and the
// remaining bits, when nonzero, point at 32-byte aligned storage with the
// message, source location and annotations. Statuses are owned values: pass
// every non-OK status on, or consume it with iree_status_free/ignore.
typedef struct iree_status_handle_t* iree_status_t;

#define iree_status_from_code(code)                          \
  ((iree_status_t)((uintptr_t)((iree_status_code_t)(code)) & \
                   IREE_STATUS_CODE_MASK))
#define iree_status_code(value) \
  ((iree_status_code_t)(((uintptr_t)(value)) & IREE_STATUS_CODE_MASK))
#define iree_status_is_ok(value) IREE_LIKELY((uintptr_t)(value) == IREE_STATUS_OK)
#define iree_status_is_cancelled(value) \
  (iree_status_code(value) == IREE_STATUS_CANCELLED)
#define iree_status_is_unknown(value) \
  (iree_status_code(value) == IREE_STATUS_UNKNOWN)
#define iree_status_is_invalid_argument(value) \
  (iree_status_code(value) == IREE_STATUS_INVALID_ARGUMENT)
#define iree_status_is_deadline_exceeded(value) \
  (iree_status_code(value) == IREE_STATUS_DEADLINE_EXCEEDED)
#define iree_status_is_not_found(value) \
  (iree_status_code(value) == IREE_STATUS_NOT_FOUND)
#define iree_status_is_already_exists(value) \
  (iree_status_code(value) == IREE_STATUS_ALREADY_EXISTS)
#define iree_status_is_permission_denied(value) \
  (iree_status_code(value) == IREE_STATUS_PERMISSION_DENIED)
#define iree_status_is_resource_exhausted(value) \
  (iree_status_code(value) == IREE_STATUS_RESOURCE_EXHAUSTED)
#define iree_status_is_failed_precondition(value) \
  (iree_status_code(value) == IREE_STATUS_FAILED_PRECONDITION)
#define iree_status_is_aborted(value) \
  (iree_status_code(value) == IREE_STATUS_ABORTED)
#define iree_status_is_out_of_range(value) \
  (iree_status_code(value) == IREE_STATUS_OUT_OF_RANGE)
#define iree_status_is_unimplemented(value) \
  (iree_status_code(value) == IREE_STATUS_UNIMPLEMENTED)
#define iree_status_is_internal(value) \
  (iree_status_code(value) == IREE_STATUS_INTERNAL)
#define iree_status_is_unavailable(value) \
  (iree_status_code(value) == IREE_STATUS_UNAVAILABLE)
#define iree_status_is_data_loss(value) \
  (iree_status_code(value) == IREE_STATUS_DATA_LOSS)
#define iree_status_is_unauthenticated(value) \
  (iree_status_code(value) == IREE_STATUS_UNAUTHENTICATED)
#define iree_status_is_deferred(value) \
  (iree_status_code(value) == IREE_STATUS_DEFERRED)
#define iree_status_is_incompatible(value) \
  (iree_status_code(value) == IREE_STATUS_INCOMPATIBLE)

// Argument-count dispatch used by the status macros below: picks |one|,
// |two| or |many| for 1, 2 or 3+ arguments (up to 16).
#define IREE_RS_PICK_17_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, \
                         _13, _14, _15, _16, _17, ...)                      \
  _17
#define IREE_RS_EXPAND_(x) x
#define IREE_RS_BY_COUNT_(one, two, many, ...)                               \
  IREE_RS_EXPAND_(IREE_RS_PICK_17_(__VA_ARGS__, many, many, many, many, many, \
                                   many, many, many, many, many, many, many, \
                                   many, many, two, one, _))
#define IREE_STATUS_IMPL_CONCAT_INNER_(x, y) x##y
#define IREE_STATUS_IMPL_CONCAT_(x, y) IREE_STATUS_IMPL_CONCAT_INNER_(x, y)

// iree_make_status(code), iree_make_status(code, "message") and
// iree_make_status(code, "format %d", args...).
#if IREE_STATUS_FEATURES == 0
#define IREE_RS_MAKE_STATUS_(file, line, code, ...) \
  ((iree_status_t)(uintptr_t)((code)&IREE_STATUS_CODE_MASK))
#define iree_make_status(...) IREE_RS_MAKE_STATUS_(0, 0, __VA_ARGS__, 0)
#define iree_make_status_with_location(file, line, ...) \
  IREE_RS_MAKE_STATUS_(file, line, __VA_ARGS__, 0)
#else
#define IREE_RS_MAKE_STATUS_CODE_(file, line, code) \
  iree_status_allocate((code), (file), (line), iree_string_view_empty())
#define IREE_RS_MAKE_STATUS_MESSAGE_(file, line, code, message) \
  iree_status_allocate((code), (file), (line), iree_make_cstring_view(message))
#define IREE_RS_MAKE_STATUS_FORMAT_(file, line, code, ...) \
  iree_status_allocate_f((code), (file), (line), __VA_ARGS__)
#define iree_make_status_with_location(file, line, ...)                 \
  IREE_RS_BY_COUNT_(IREE_RS_MAKE_STATUS_CODE_, IREE_RS_MAKE_STATUS_MESSAGE_, \
                    IREE_RS_MAKE_STATUS_FORMAT_, __VA_ARGS__)                \
  (file, line, __VA_ARGS__)
#define iree_make_status(...) \
  iree_make_status_with_location(__FILE__, __LINE__, __VA_ARGS__)
#endif  // IREE_STATUS_FEATURES == 0

#define iree_ok_status() iree_status_from_code(IREE_STATUS_OK)

// Annotates |var| (the failed status of the first argument) with nothing, a
// message, or a format and its arguments: whatever follows the first argument.
#define IREE_RS_ANNOTATE_NONE_(var, expr) (var)
#define IREE_RS_ANNOTATE_MESSAGE_(var, expr, message) \
  iree_status_annotate((var), iree_make_cstring_view(message))
#define IREE_RS_ANNOTATE_FORMAT_(var, expr, ...) \
  iree_status_annotate_f((var), __VA_ARGS__)
#define IREE_RS_ANNOTATE_(var, ...)                                     \
  IREE_RS_BY_COUNT_(IREE_RS_ANNOTATE_NONE_, IREE_RS_ANNOTATE_MESSAGE_, \
                    IREE_RS_ANNOTATE_FORMAT_, __VA_ARGS__)              \
  (var, __VA_ARGS__)
#define IREE_RS_FIRST_(first, ...) first

// Returns from the enclosing function when |expr| fails, annotating the
// status with the optional message or format and arguments that follow.
#define IREE_RETURN_IF_ERROR(...) \
  IREE_RS_RETURN_IF_ERROR_(       \
      IREE_STATUS_IMPL_CONCAT_(__iree_status_, __COUNTER__), __VA_ARGS__)
#define IREE_RS_RETURN_IF_ERROR_(var, ...)                    \
  do {                                                        \
    iree_status_t var = (IREE_RS_FIRST_(__VA_ARGS__, 0));     \
    if (IREE_UNLIKELY(var)) {                                 \
      return IREE_RS_ANNOTATE_(var, __VA_ARGS__);              \
    }                                                         \
  } while (0)

// As IREE_RETURN_IF_ERROR, evaluating |tail_expr| before returning.
#define IREE_RETURN_AND_EVAL_IF_ERROR(tail_expr, ...)                        \
  IREE_RS_RETURN_AND_EVAL_IF_ERROR_(                                         \
      IREE_STATUS_IMPL_CONCAT_(__iree_status_, __COUNTER__), tail_expr,      \
      __VA_ARGS__)
#define IREE_RS_RETURN_AND_EVAL_IF_ERROR_(var, tail_expr, ...)  \
  do {                                                          \
    iree_status_t var = (IREE_RS_FIRST_(__VA_ARGS__, 0));       \
    if (IREE_UNLIKELY(var)) {                                   \
      (tail_expr);                                              \
      return IREE_RS_ANNOTATE_(var, __VA_ARGS__);              \
    }                                                           \
  } while (0)

// Drops the status of |expr| (freeing it when it failed).
#define IREE_IGNORE_ERROR(expr) \
  do {                          \
    iree_status_t __iree_ignored = (expr); \
    if (IREE_UNLIKELY(__iree_ignored)) iree_status_ignore(__iree_ignored); \
  } while (0)

// Prints the status of |expr| to stderr and aborts the process if it failed.
#define IREE_CHECK_OK(expr, ...)                                       \
  do {                                                                 \
    iree_status_t __iree_checked = (expr);                             \
    if (IREE_UNLIKELY(__iree_checked)) iree_status_abort(__iree_checked); \
  } while (0)

IREE_API_EXPORT iree_status_code_t
iree_status_code_from_errno(int error_number);
IREE_API_EXPORT const char* iree_status_code_string(iree_status_code_t code);
IREE_API_EXPORT IREE_MUST_USE_RESULT iree_status_t
iree_status_allocate(iree_status_code_t code, const char* file, uint32_t line,
                     iree_string_view_t message);
IREE_API_EXPORT IREE_MUST_USE_RESULT iree_status_t IREE_PRINTF_ATTRIBUTE(4, 5)
    iree_status_allocate_f(iree_status_code_t code, const char* file,
                           uint32_t line, const char* format, ...);
IREE_API_EXPORT IREE_MUST_USE_RESULT iree_status_t
iree_status_allocate_vf(iree_status_code_t code, const char* file,
                        uint32_t line, const char* format, va_list varargs);
IREE_API_EXPORT IREE_MUST_USE_RESULT iree_status_t
iree_status_allocate_copy(iree_status_code_t code, iree_string_view_t file,
                          uint32_t line, iree_string_view_t message);
IREE_API_EXPORT IREE_MUST_USE_RESULT iree_status_t
iree_status_clone(iree_status_t status);
IREE_API_EXPORT IREE_MUST_USE_RESULT iree_status_t
iree_status_freeze(iree_status_t status);
IREE_API_EXPORT void iree_status_free(iree_status_t status);
IREE_API_EXPORT iree_status_t iree_status_ignore(iree_status_t status);
IREE_API_EXPORT iree_status_t iree_status_join(iree_status_t base_status,
                                               iree_status_t new_status);
IREE_API_EXPORT IREE_ATTRIBUTE_NORETURN void iree_status_abort(
    iree_status_t status);
IREE_API_EXPORT iree_status_code_t
iree_status_consume_code(iree_status_t status);

#if IREE_STATUS_FEATURES & IREE_STATUS_FEATURE_ANNOTATIONS
IREE_API_EXPORT IREE_MUST_USE_RESULT iree_status_t
iree_status_annotate(iree_status_t base_status, iree_string_view_t message);
IREE_API_EXPORT IREE_MUST_USE_RESULT iree_status_t IREE_PRINTF_ATTRIBUTE(2, 3)
    iree_status_annotate_f(iree_status_t base_status, const char* format, ...);
#else
#define iree_status_annotate(base_status, ...) (base_status)
#define iree_status_annotate_f(base_status, ...) (base_status)
#endif  // IREE_STATUS_FEATURE_ANNOTATIONS

// Formats `file:line: CODE; message; annotation...` into |buffer| (NUL
// terminated when it fits); with a NULL buffer only the length is returned.
IREE_API_EXPORT bool iree_status_format(iree_status_t status,
                                        iree_host_size_t buffer_capacity,
                                        char* buffer,
                                        iree_host_size_t* out_buffer_length);
typedef bool (*iree_status_output_fn_t)(iree_string_view_t string,
                                        void* user_data);
IREE_API_EXPORT bool iree_status_format_to(iree_status_t status,
                                           iree_status_output_fn_t output_fn,
                                           void* user_data);
IREE_API_EXPORT bool iree_status_to_string(iree_status_t status,
                                           const iree_allocator_t* allocator,
                                           char** out_buffer,
                                           iree_host_size_t* out_buffer_length);
// Writes the formatted status and a newline to |file| through stdio.
IREE_API_EXPORT void iree_status_fprint(FILE* file, iree_status_t status);

typedef struct iree_status_source_location_t {
  const char* file;
  uint32_t line;
} iree_status_source_location_t;
IREE_API_EXPORT iree_status_source_location_t
iree_status_source_location(iree_status_t status);
IREE_API_EXPORT iree_string_view_t iree_status_message(iree_status_t status);

//===----------------------------------------------------------------------===//
// Allocators
//===----------------------------------------------------------------------===//

typedef enum iree_allocator_command_e {
  IREE_ALLOCATOR_COMMAND_MALLOC = 0,
  IREE_ALLOCATOR_COMMAND_CALLOC = 1,
  IREE_ALLOCATOR_COMMAND_REALLOC = 2,
  IREE_ALLOCATOR_COMMAND_FREE = 3,
} iree_allocator_command_t;

typedef struct iree_allocator_alloc_params_t {
  iree_host_size_t byte_length;
} iree_allocator_alloc_params_t;

typedef iree_status_t(IREE_API_PTR* iree_allocator_ctl_fn_t)(
    void* self, iree_allocator_command_t command, const void* params,
    void** inout_ptr);

// An allocator passed by value: |ctl| serves every command with |self|.
// A NULL |ctl| is the null allocator (nothing may be allocated or freed).
typedef struct iree_allocator_t {
  void* self;
  iree_allocator_ctl_fn_t ctl;
} iree_allocator_t;

IREE_API_EXPORT iree_status_t iree_allocator_malloc(
    iree_allocator_t allocator, iree_host_size_t byte_length, void** out_ptr);
IREE_API_EXPORT iree_status_t iree_allocator_malloc_uninitialized(
    iree_allocator_t allocator, iree_host_size_t byte_length, void** out_ptr);
IREE_API_EXPORT iree_status_t iree_allocator_realloc(
    iree_allocator_t allocator, iree_host_size_t byte_length, void** inout_ptr);
IREE_API_EXPORT iree_status_t
iree_allocator_clone(iree_allocator_t allocator,
                     iree_const_byte_span_t source_bytes, void** out_ptr);
IREE_API_EXPORT void iree_allocator_free(iree_allocator_t allocator, void* ptr);
IREE_API_EXPORT iree_status_t
iree_allocator_malloc_array(iree_allocator_t allocator, iree_host_size_t count,
                            iree_host_size_t element_size, void** out_ptr);

static inline iree_allocator_t iree_allocator_null(void) {
  iree_allocator_t allocator = {NULL, NULL};
  return allocator;
}
static inline bool iree_allocator_is_null(iree_allocator_t allocator) {
  return allocator.ctl == NULL;
}

// The libc allocator (malloc/calloc/realloc/free).
IREE_API_EXPORT iree_status_t
iree_allocator_libc_ctl(void* self, iree_allocator_command_t command,
                        const void* params, void** inout_ptr);

// The allocator behind iree_allocator_system(): upstream's build passes
// -DIREE_ALLOCATOR_SYSTEM_CTL=iree_allocator_libc_ctl; this library defaults
// to the same when the program does not choose one.
#if !defined(IREE_ALLOCATOR_SYSTEM_CTL)
#define IREE_ALLOCATOR_SYSTEM_CTL iree_allocator_libc_ctl
#else
IREE_API_EXPORT iree_status_t
IREE_ALLOCATOR_SYSTEM_CTL(void* self, iree_allocator_command_t command,
                          const void* params, void** inout_ptr);
#endif  // !IREE_ALLOCATOR_SYSTEM_CTL
#if defined(IREE_ALLOCATOR_SYSTEM_SELF)
IREE_API_EXPORT_VARIABLE void* IREE_ALLOCATOR_SYSTEM_SELF;
#else
#define IREE_ALLOCATOR_SYSTEM_SELF NULL
#endif  // IREE_ALLOCATOR_SYSTEM_SELF
static inline iree_allocator_t iree_allocator_system(void) {
  iree_allocator_t allocator = {IREE_ALLOCATOR_SYSTEM_SELF,
                                IREE_ALLOCATOR_SYSTEM_CTL};
  return allocator;
}

//===----------------------------------------------------------------------===//
// String builders (the layout other structures refer to)
//===----------------------------------------------------------------------===//

typedef struct iree_string_builder_t {
  iree_allocator_t allocator;
  char* buffer;
  iree_host_size_t size;
  iree_host_size_t capacity;
} iree_string_builder_t;

//===----------------------------------------------------------------------===//
// Time
//===----------------------------------------------------------------------===//

typedef int64_t iree_time_t;
#define IREE_TIME_INFINITE_PAST INT64_MIN
#define IREE_TIME_INFINITE_FUTURE INT64_MAX
typedef int64_t iree_duration_t;
#define IREE_DURATION_ZERO 0
#define IREE_DURATION_INFINITE INT64_MAX

// Nanoseconds on the monotonic clock.
IREE_API_EXPORT iree_time_t iree_time_now(void);
IREE_API_EXPORT iree_time_t
iree_relative_timeout_to_deadline_ns(iree_duration_t timeout_ns);

static inline iree_duration_t iree_make_duration_ms(int64_t timeout_ms) {
  return timeout_ms * 1000000ll;
}

typedef enum iree_timeout_type_e {
  IREE_TIMEOUT_ABSOLUTE = 0,
  IREE_TIMEOUT_RELATIVE = 1,
} iree_timeout_type_t;

// A deadline (absolute, in iree_time_now() nanoseconds) or a duration.
typedef struct iree_timeout_t {
  iree_timeout_type_t type;
  iree_time_t nanos;
} iree_timeout_t;

static inline iree_timeout_t iree_immediate_timeout(void) {
  iree_timeout_t timeout = {IREE_TIMEOUT_ABSOLUTE, IREE_TIME_INFINITE_PAST};
  return timeout;
}
static inline bool iree_timeout_is_immediate(iree_timeout_t timeout) {
  return timeout.type == IREE_TIMEOUT_ABSOLUTE
             ? timeout.nanos == IREE_TIME_INFINITE_PAST
             : timeout.nanos == IREE_DURATION_ZERO;
}
static inline iree_timeout_t iree_infinite_timeout(void) {
  iree_timeout_t timeout = {IREE_TIMEOUT_ABSOLUTE, IREE_TIME_INFINITE_FUTURE};
  return timeout;
}
static inline bool iree_timeout_is_infinite(iree_timeout_t timeout) {
  return timeout.type == IREE_TIMEOUT_ABSOLUTE
             ? timeout.nanos == IREE_TIME_INFINITE_FUTURE
             : timeout.nanos == IREE_DURATION_INFINITE;
}
static inline iree_timeout_t iree_make_deadline(iree_time_t deadline_ns) {
  iree_timeout_t timeout = {IREE_TIMEOUT_ABSOLUTE, deadline_ns};
  return timeout;
}
static inline iree_timeout_t iree_make_timeout_ns(iree_duration_t timeout_ns) {
  iree_timeout_t timeout = {IREE_TIMEOUT_RELATIVE, timeout_ns};
  return timeout;
}
static inline iree_timeout_t iree_make_timeout_ms(iree_duration_t timeout_ms) {
  iree_timeout_t timeout = {
      IREE_TIMEOUT_RELATIVE,
      timeout_ms == IREE_DURATION_INFINITE ? IREE_DURATION_INFINITE
                                           : timeout_ms * 1000000ll};
  return timeout;
}
static inline iree_time_t iree_timeout_as_deadline_ns(iree_timeout_t timeout) {
  return timeout.type == IREE_TIMEOUT_ABSOLUTE
             ? timeout.nanos
             : iree_relative_timeout_to_deadline_ns(timeout.nanos);
}

//===----------------------------------------------------------------------===//
// Wait sources (the layout VM wait frames refer to)
//===----------------------------------------------------------------------===//

typedef struct iree_wait_source_t {
  void* self;
  uint64_t data;
  void* ctl;
} iree_wait_source_t;

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

// C++ programs get upstream's header-only C++ status wrappers when upstream's
// source tree is on the include path after this library's headers.
#if defined(__cplusplus) && defined(__has_include)
#if __has_include("iree/base/status_cc.h")
#include "iree/base/status_cc.h"
#endif
#endif

#endif  // IREE_BASE_API_H_
