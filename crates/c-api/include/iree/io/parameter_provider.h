// iree-rs C API: parameter providers (`iree/io/parameter_provider.h` of
// upstream IREE). Providers are made by the library
// (iree/io/parameter_index_provider.h) and handed to the io_parameters
// module; C code cannot define its own.

#ifndef IREE_IO_PARAMETER_PROVIDER_H_
#define IREE_IO_PARAMETER_PROVIDER_H_

#include <stdbool.h>
#include <stdint.h>

#include "iree/base/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_io_parameter_provider_t iree_io_parameter_provider_t;

IREE_API_EXPORT void iree_io_parameter_provider_retain(
    iree_io_parameter_provider_t* provider);
IREE_API_EXPORT void iree_io_parameter_provider_release(
    iree_io_parameter_provider_t* provider);

// Whether the provider serves parameters of |scope|.
IREE_API_EXPORT bool iree_io_parameter_provider_query_support(
    iree_io_parameter_provider_t* provider, iree_string_view_t scope);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_IO_PARAMETER_PROVIDER_H_
