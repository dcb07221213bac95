// iree-rs C API: loading dynamic module libraries from C hosts. Names
// follow upstream IREE's `iree/vm/dynamic/module.h`.

#ifndef IREE_VM_DYNAMIC_MODULE_H_
#define IREE_VM_DYNAMIC_MODULE_H_

#include "iree/base/api.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

// Loads the library at |path| (kept loaded) and creates its module through
// |export_name| (empty: `iree_vm_dynamic_module_create`) with |params|.
IREE_API_EXPORT iree_status_t iree_vm_dynamic_module_load_from_file(
    iree_vm_instance_t* instance, iree_string_view_t path,
    iree_string_view_t export_name, iree_host_size_t param_count,
    const iree_string_pair_t* params, iree_allocator_t allocator,
    iree_vm_module_t** out_module);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_VM_DYNAMIC_MODULE_H_
