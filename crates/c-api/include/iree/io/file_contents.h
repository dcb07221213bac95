// iree-rs C API: files read into memory. Names and the public layout follow
// upstream IREE's `iree/io/file_contents.h`.

#ifndef IREE_IO_FILE_CONTENTS_H_
#define IREE_IO_FILE_CONTENTS_H_

#include <stdint.h>

#include "iree/base/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_io_file_mapping_t iree_io_file_mapping_t;

typedef struct iree_io_file_contents_t {
  iree_allocator_t allocator;
  union {
    iree_byte_span_t buffer;
    iree_const_byte_span_t const_buffer;
  };
  iree_io_file_mapping_t* mapping;
} iree_io_file_contents_t;

IREE_API_EXPORT void iree_io_file_contents_free(
    iree_io_file_contents_t* contents);
// An allocator whose free releases |contents|: hand it with the bytes to an
// owner (iree_vm_bytecode_module_create).
IREE_API_EXPORT iree_allocator_t
iree_io_file_contents_deallocator(iree_io_file_contents_t* contents);
IREE_API_EXPORT iree_status_t iree_io_file_contents_read_stdin(
    iree_allocator_t host_allocator, iree_io_file_contents_t** out_contents);
IREE_API_EXPORT iree_status_t iree_io_file_contents_read(
    iree_string_view_t path, iree_allocator_t host_allocator,
    iree_io_file_contents_t** out_contents);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_IO_FILE_CONTENTS_H_
