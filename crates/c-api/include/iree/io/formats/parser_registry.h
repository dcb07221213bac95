// iree-rs C API: parameter file formats
// (`iree/io/formats/parser_registry.h` of upstream IREE).

#ifndef IREE_IO_FORMATS_PARSER_REGISTRY_H_
#define IREE_IO_FORMATS_PARSER_REGISTRY_H_

#include "iree/base/api.h"
#include "iree/io/file_handle.h"
#include "iree/io/parameter_index.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

// Appends the entries of the parameter file behind |file_handle| to
// |index|. The format follows |path|'s extension: .irpa, .gguf or
// .safetensors (UNIMPLEMENTED for others).
IREE_API_EXPORT iree_status_t iree_io_parse_file_index(
    iree_string_view_t path, iree_io_file_handle_t* file_handle,
    iree_io_parameter_index_t* index, iree_allocator_t host_allocator);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_IO_FORMATS_PARSER_REGISTRY_H_
