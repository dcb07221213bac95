// The C half of the library's variadic entry points. Stable Rust cannot
// define C-variadic functions, so the public names (exported from Rust as
// tail jumps, see status.rs) land here; the message is formatted with the C
// library's vsnprintf and handed to Rust as a string.

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "iree/base/api.h"

// Implemented in Rust (status.rs): a status whose message is a copy of
// |message|, |file| kept by pointer (a static string, as upstream requires).
extern iree_status_t iree_rs_status_allocate_formatted(
    iree_status_code_t code, const char* file, uint32_t line,
    const char* message, iree_host_size_t message_length);
// Implemented in Rust (status.rs): appends a copy of |message|.
extern iree_status_t iree_rs_status_annotate_copy(
    iree_status_t base_status, const char* message,
    iree_host_size_t message_length);

// Formats into a malloc'd buffer; NULL when formatting fails.
static char* iree_rs_vformat(const char* format, va_list varargs,
                             int* out_length) {
  va_list measure;
  va_copy(measure, varargs);
  int length = vsnprintf(NULL, 0, format, measure);
  va_end(measure);
  if (length < 0) return NULL;
  char* buffer = (char*)malloc((size_t)length + 1);
  if (!buffer) return NULL;
  vsnprintf(buffer, (size_t)length + 1, format, varargs);
  *out_length = length;
  return buffer;
}

iree_status_t iree_rs_status_allocate_vf_impl(iree_status_code_t code,
                                              const char* file, uint32_t line,
                                              const char* format,
                                              va_list varargs) {
  int length = 0;
  char* message = format ? iree_rs_vformat(format, varargs, &length) : NULL;
  iree_status_t status = iree_rs_status_allocate_formatted(
      code, file, line, message, message ? (iree_host_size_t)length : 0);
  free(message);
  return status;
}

iree_status_t iree_rs_status_allocate_f_impl(iree_status_code_t code,
                                             const char* file, uint32_t line,
                                             const char* format, ...) {
  va_list varargs;
  va_start(varargs, format);
  iree_status_t status =
      iree_rs_status_allocate_vf_impl(code, file, line, format, varargs);
  va_end(varargs);
  return status;
}

iree_status_t iree_rs_status_annotate_f_impl(iree_status_t base_status,
                                             const char* format, ...) {
  if (iree_status_is_ok(base_status) || !format) return base_status;
  va_list varargs;
  va_start(varargs, format);
  int length = 0;
  char* message = iree_rs_vformat(format, varargs, &length);
  va_end(varargs);
  if (!message) return base_status;
  iree_status_t status = iree_rs_status_annotate_copy(
      base_status, message, (iree_host_size_t)length);
  free(message);
  return status;
}
