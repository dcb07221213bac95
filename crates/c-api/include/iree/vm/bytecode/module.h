// iree-rs C API: bytecode modules (`.vmfb`). Names follow upstream IREE's
// `iree/vm/bytecode/module.h`.

#ifndef IREE_VM_BYTECODE_MODULE_H_
#define IREE_VM_BYTECODE_MODULE_H_

#include "iree/base/api.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef enum iree_vm_bytecode_module_flags_e {
  IREE_VM_BYTECODE_MODULE_FLAG_NONE = 0,
  IREE_VM_BYTECODE_MODULE_FLAG_ALLOW_PLACEHOLDER_TYPES = 1u << 0,
} iree_vm_bytecode_module_flags_t;

// Loads and verifies a module. On success the module owns the bytes: it
// frees them with |archive_allocator| (nothing for iree_allocator_null()) when
// released; on failure they stay the caller's.
IREE_API_EXPORT iree_status_t iree_vm_bytecode_module_create(
    iree_vm_instance_t* instance, iree_vm_bytecode_module_flags_t flags,
    iree_const_byte_span_t archive_contents, iree_allocator_t archive_allocator,
    iree_allocator_t allocator, iree_vm_module_t** out_module);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_VM_BYTECODE_MODULE_H_
