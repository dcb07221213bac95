// iree-rs C API: the embedded ELF loader
// (`iree/hal/local/loaders/embedded_elf_loader.h` of upstream IREE): loads
// `embedded-elf-<arch>` executables with the library's own ELF loader.

#ifndef IREE_HAL_LOCAL_LOADERS_EMBEDDED_ELF_LOADER_H_
#define IREE_HAL_LOCAL_LOADERS_EMBEDDED_ELF_LOADER_H_

#include <stdbool.h>
#include <stdint.h>

#include "iree/base/api.h"
#include "iree/hal/local/executable_loader.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_hal_executable_plugin_manager_t
    iree_hal_executable_plugin_manager_t;

// |plugin_manager| must be NULL (executable plugins are not supported).
IREE_API_EXPORT iree_status_t iree_hal_embedded_elf_loader_create(
    iree_hal_executable_plugin_manager_t* plugin_manager,
    iree_allocator_t host_allocator,
    iree_hal_executable_loader_t** out_executable_loader);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_HAL_LOCAL_LOADERS_EMBEDDED_ELF_LOADER_H_
