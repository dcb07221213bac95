// iree-rs C API: parameter indices (`iree/io/parameter_index.h` of
// upstream IREE): named parameters and where their bytes are. Entries come
// from parameter files (iree_io_parse_file_index); they are not exposed as
// structs here.

#ifndef IREE_IO_PARAMETER_INDEX_H_
#define IREE_IO_PARAMETER_INDEX_H_

#include <stdio.h>

#include "iree/base/api.h"
#include "iree/io/file_handle.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_io_parameter_index_t iree_io_parameter_index_t;

IREE_API_EXPORT iree_status_t iree_io_parameter_index_create(
    iree_allocator_t host_allocator, iree_io_parameter_index_t** out_index);
IREE_API_EXPORT void iree_io_parameter_index_retain(
    iree_io_parameter_index_t* index);
IREE_API_EXPORT void iree_io_parameter_index_release(
    iree_io_parameter_index_t* index);

// Entries, duplicate keys included.
IREE_API_EXPORT iree_host_size_t
iree_io_parameter_index_count(iree_io_parameter_index_t* index);

// Writes the entries as a table (the layout of `iree-dump-parameters`)
// through stdio.
IREE_API_EXPORT iree_status_t iree_io_parameter_index_fprint(
    FILE* file, iree_string_view_t scope, iree_io_parameter_index_t* index);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_IO_PARAMETER_INDEX_H_
