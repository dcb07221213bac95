// iree-rs C API: native modules written in C (a descriptor plus function
// shims). Names and layouts follow upstream IREE's
// `iree/vm/native_module.h`.

#ifndef IREE_VM_NATIVE_MODULE_H_
#define IREE_VM_NATIVE_MODULE_H_

#include <stdint.h>

#include "iree/base/api.h"
#include "iree/vm/instance.h"
#include "iree/vm/module.h"
#include "iree/vm/stack.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

enum iree_vm_native_import_flag_bits_e {
  IREE_VM_NATIVE_IMPORT_REQUIRED = 1u << 0,
  IREE_VM_NATIVE_IMPORT_OPTIONAL = 1u << 1,
};
typedef uint32_t iree_vm_native_import_flags_t;

typedef struct iree_vm_native_import_descriptor_t {
  iree_vm_native_import_flags_t flags;
  iree_string_view_t full_name;
} iree_vm_native_import_descriptor_t;

typedef struct iree_vm_native_export_descriptor_t {
  iree_string_view_t local_name;
  iree_string_view_t calling_convention;
  iree_host_size_t attr_count;
  const iree_string_pair_t* attrs;
} iree_vm_native_export_descriptor_t;

typedef iree_status_t(IREE_API_PTR* iree_vm_native_function_target_t)(
    iree_vm_stack_t* stack, void* module, void* module_state);

enum iree_vm_native_function_flag_bits_t {
  IREE_VM_NATIVE_FUNCTION_CALL_BEGIN = 1u << 0,
  IREE_VM_NATIVE_FUNCTION_CALL_RESUME = 1u << 1,
};
typedef uint32_t iree_vm_native_function_flags_t;

// Unpacks |args_storage|, calls |target_fn| and packs |rets_storage| (laid
// out as the export's calling convention says).
typedef iree_status_t(IREE_API_PTR* iree_vm_native_function_shim_t)(
    iree_vm_stack_t* stack, iree_vm_native_function_flags_t flags,
    iree_byte_span_t args_storage, iree_byte_span_t rets_storage,
    iree_vm_native_function_target_t target_fn, void* module,
    void* module_state);

typedef struct iree_vm_native_function_ptr_t {
  iree_vm_native_function_shim_t shim;
  iree_vm_native_function_target_t target;
} iree_vm_native_function_ptr_t;

// What a native module offers; exports sorted by name.
typedef struct iree_vm_native_module_descriptor_t {
  IREE_API_UNSTABLE
  iree_string_view_t name;
  uint32_t version;
  iree_host_size_t attr_count;
  const iree_string_pair_t* attrs;
  iree_host_size_t dependency_count;
  const iree_vm_module_dependency_t* dependencies;
  iree_host_size_t import_count;
  const iree_vm_native_import_descriptor_t* imports;
  iree_host_size_t export_count;
  const iree_vm_native_export_descriptor_t* exports;
  iree_host_size_t function_count;
  const iree_vm_native_function_ptr_t* functions;
} iree_vm_native_module_descriptor_t;

IREE_API_EXPORT iree_host_size_t iree_vm_native_module_size(void);
// A module serving |module_descriptor| (which must outlive it); the
// callbacks of |module_interface| that are set (state, imports, notify,
// destroy, calls) are used with its |self|.
IREE_API_EXPORT iree_status_t iree_vm_native_module_create(
    const iree_vm_module_t* module_interface,
    const iree_vm_native_module_descriptor_t* module_descriptor,
    iree_vm_instance_t* instance, iree_allocator_t allocator,
    iree_vm_module_t** out_module);
IREE_API_EXPORT iree_status_t iree_vm_native_module_initialize(
    const iree_vm_module_t* module_interface,
    const iree_vm_native_module_descriptor_t* module_descriptor,
    iree_vm_instance_t* instance, iree_allocator_t allocator,
    iree_vm_module_t* module);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_VM_NATIVE_MODULE_H_
