// iree-rs C API: executable loaders (`iree/hal/local/executable_loader.h`
// of upstream IREE). Loaders are made by the library's constructors
// (iree/hal/local/loaders/*.h) and handed to local device constructors;
// the loader struct is opaque here: C code cannot define its own loaders.

#ifndef IREE_HAL_LOCAL_EXECUTABLE_LOADER_H_
#define IREE_HAL_LOCAL_EXECUTABLE_LOADER_H_

#include <stdbool.h>
#include <stdint.h>

#include "iree/base/api.h"
#include "iree/hal/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

enum iree_hal_executable_import_resolution_bits_e {
  IREE_HAL_EXECUTABLE_IMPORT_RESOLUTION_MISSING_OPTIONAL = 1u << 0,
};
typedef uint32_t iree_hal_executable_import_resolution_t;

typedef iree_status_t(
    IREE_API_PTR* iree_hal_executable_import_provider_resolve_fn_t)(
    void* self, iree_host_size_t count, const char* const* symbol_names,
    void** out_fn_ptrs, void** out_fn_contexts,
    iree_hal_executable_import_resolution_t* out_resolution);

// Resolves the functions executables import. This library's loaders take
// only the null provider: required imports fail a load, optional ones stay
// NULL.
typedef struct iree_hal_executable_import_provider_t {
  IREE_API_UNSTABLE
  void* self;
  iree_hal_executable_import_provider_resolve_fn_t resolve;
} iree_hal_executable_import_provider_t;

static inline iree_hal_executable_import_provider_t
iree_hal_executable_import_provider_null(void) {
  iree_hal_executable_import_provider_t provider = {NULL, NULL};
  return provider;
}

static inline bool iree_hal_executable_import_is_optional(
    const char* symbol_name) {
  return symbol_name ? (symbol_name[0] == '?') : false;
}

typedef uint32_t iree_hal_executable_caching_mode_t;

typedef struct iree_hal_executable_loader_t iree_hal_executable_loader_t;

IREE_API_EXPORT void iree_hal_executable_loader_retain(
    iree_hal_executable_loader_t* executable_loader);
IREE_API_EXPORT void iree_hal_executable_loader_release(
    iree_hal_executable_loader_t* executable_loader);

// Whether the loader takes executables of |executable_format|.
IREE_API_EXPORT bool iree_hal_executable_loader_query_support(
    iree_hal_executable_loader_t* executable_loader,
    iree_hal_executable_caching_mode_t caching_mode,
    iree_string_view_t executable_format);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_HAL_LOCAL_EXECUTABLE_LOADER_H_
