// iree-rs C API: the dynamic module entry point of module libraries. Names
// and values follow upstream IREE's `iree/vm/dynamic/api.h` (ABI version 1).
//
// A library exports `iree_vm_dynamic_module_create` (or another name given
// as `--module=lib.so@name`) with this signature; its `iree_*` calls resolve
// to the host process's runtime.

#ifndef IREE_VM_DYNAMIC_API_H_
#define IREE_VM_DYNAMIC_API_H_

#include "iree/base/api.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef uint32_t iree_vm_dynamic_module_version_t;

#define IREE_VM_DYNAMIC_MODULE_VERSION_0_1 0x00000001u
#define IREE_VM_DYNAMIC_MODULE_VERSION_LATEST IREE_VM_DYNAMIC_MODULE_VERSION_0_1

typedef iree_status_t(IREE_API_PTR* iree_vm_dynamic_module_create_fn_t)(
    iree_vm_dynamic_module_version_t max_version, iree_vm_instance_t* instance,
    iree_host_size_t param_count, const iree_string_pair_t* params,
    iree_allocator_t allocator, iree_vm_module_t** out_module);

#define IREE_VM_DYNAMIC_MODULE_EXPORT_NAME "iree_vm_dynamic_module_create"

#if defined(_WIN32) || defined(__CYGWIN__)
#define IREE_VM_DYNAMIC_MODULE_EXPORT __declspec(dllexport)
#else
#define IREE_VM_DYNAMIC_MODULE_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_VM_DYNAMIC_API_H_
