// iree-rs C API: the `io_parameters` module
// (`iree/modules/io/parameters/module.h` of upstream IREE): programs load
// their parameters through it.

#ifndef IREE_MODULES_IO_PARAMETERS_MODULE_H_
#define IREE_MODULES_IO_PARAMETERS_MODULE_H_

#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/io/parameter_provider.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

// The module over |providers| (asked in order for the first that serves a
// scope); it keeps its own counts of them.
IREE_API_EXPORT iree_status_t iree_io_parameters_module_create(
    iree_vm_instance_t* instance, iree_host_size_t provider_count,
    iree_io_parameter_provider_t* const* providers,
    iree_allocator_t host_allocator,
    iree_vm_module_t** IREE_RESTRICT out_module);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_MODULES_IO_PARAMETERS_MODULE_H_
