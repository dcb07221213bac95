// iree-rs C API: the static library loader
// (`iree/hal/local/loaders/static_library_loader.h` of upstream IREE):
// executables of format `static` name one of the kernel libraries linked
// into the program (the compiler's --iree-llvmcpu-link-static output),
// whose query functions the program passes in.

#ifndef IREE_HAL_LOCAL_LOADERS_STATIC_LIBRARY_LOADER_H_
#define IREE_HAL_LOCAL_LOADERS_STATIC_LIBRARY_LOADER_H_

#include <stdbool.h>
#include <stdint.h>

#include "iree/base/api.h"
#include "iree/hal/local/executable_library.h"
#include "iree/hal/local/executable_loader.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

// Each library is queried now for its name; fails UNAVAILABLE when one
// does not answer for IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST.
// |import_provider| must be the null provider.
IREE_API_EXPORT iree_status_t iree_hal_static_library_loader_create(
    iree_host_size_t library_count,
    const iree_hal_executable_library_query_fn_t* library_query_fns,
    iree_hal_executable_import_provider_t import_provider,
    iree_allocator_t host_allocator,
    iree_hal_executable_loader_t** out_executable_loader);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_HAL_LOCAL_LOADERS_STATIC_LIBRARY_LOADER_H_
