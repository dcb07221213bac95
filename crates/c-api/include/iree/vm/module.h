// iree-rs C API: the module interface (`iree_vm_module_t`), functions and
// calls. Names and layouts follow upstream IREE's `iree/vm/module.h`.
//
// Modules written in C fill the interface (start with
// iree_vm_module_initialize) and may be registered in contexts next to the
// library's own modules.

#ifndef IREE_VM_MODULE_H_
#define IREE_VM_MODULE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iree/base/api.h"
#include "iree/base/internal/atomics.h"
#include "iree/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_vm_module_t iree_vm_module_t;
typedef struct iree_vm_stack_t iree_vm_stack_t;
typedef struct iree_vm_stack_frame_t iree_vm_stack_frame_t;

typedef enum iree_vm_function_linkage_e {
  IREE_VM_FUNCTION_LINKAGE_INTERNAL = 0,
  IREE_VM_FUNCTION_LINKAGE_IMPORT = 1,
  IREE_VM_FUNCTION_LINKAGE_EXPORT = 2,
  IREE_VM_FUNCTION_LINKAGE_IMPORT_OPTIONAL = 3,
  IREE_VM_FUNCTION_LINKAGE_EXPORT_OPTIONAL = 4,
} iree_vm_function_linkage_t;

typedef struct iree_vm_function_t {
  iree_vm_module_t* module;
  uint16_t linkage;
  uint16_t ordinal;
} iree_vm_function_t;

static inline bool iree_vm_function_is_null(iree_vm_function_t function) {
  return function.module == NULL;
}

typedef struct iree_vm_function_signature_t {
  iree_string_view_t calling_convention;
} iree_vm_function_signature_t;

typedef struct iree_vm_module_signature_t {
  uint32_t version;
  iree_host_size_t attr_count;
  iree_host_size_t import_function_count;
  iree_host_size_t export_function_count;
  iree_host_size_t internal_function_count;
} iree_vm_module_signature_t;

enum iree_vm_module_dependency_flag_bits_t {
  IREE_VM_MODULE_DEPENDENCY_FLAG_NONE = 0u,
  IREE_VM_MODULE_DEPENDENCY_FLAG_REQUIRED = 1u << 0,
  IREE_VM_MODULE_DEPENDENCY_FLAG_OPTIONAL = 1u << 1,
};
typedef uint32_t iree_vm_module_dependency_flags_t;

typedef struct iree_vm_module_dependency_t {
  iree_string_view_t name;
  uint32_t minimum_version;
  iree_vm_module_dependency_flags_t flags;
} iree_vm_module_dependency_t;

typedef iree_status_t(IREE_API_PTR* iree_vm_module_dependency_callback_t)(
    void* user_data_ptr, const iree_vm_module_dependency_t* dependency);

typedef struct iree_vm_module_state_t iree_vm_module_state_t;

// A call: arguments and results packed as the function's calling
// convention lays them out (refs in the arguments are owned by the caller,
// the callee may take them; refs written to the zeroed results pass to the
// caller).
typedef struct iree_vm_function_call_t {
  iree_vm_function_t function;
  iree_byte_span_t arguments;
  iree_byte_span_t results;
} iree_vm_function_call_t;

#define IREE_VM_CCONV_TYPE_VOID 'v'
#define IREE_VM_CCONV_TYPE_I32 'i'
#define IREE_VM_CCONV_TYPE_I64 'I'
#define IREE_VM_CCONV_TYPE_F32 'f'
#define IREE_VM_CCONV_TYPE_F64 'F'
#define IREE_VM_CCONV_TYPE_REF 'r'
#define IREE_VM_CCONV_TYPE_SPAN_START 'C'
#define IREE_VM_CCONV_TYPE_SPAN_END 'D'

IREE_API_EXPORT iree_status_t iree_vm_function_call_get_cconv_fragments(
    const iree_vm_function_signature_t* signature,
    iree_string_view_t* out_arguments, iree_string_view_t* out_results);

typedef int64_t iree_vm_source_offset_t;

typedef enum iree_vm_signal_e {
  IREE_VM_SIGNAL_RESUME = 0,
  IREE_VM_SIGNAL_SUSPEND = 1,
  IREE_VM_SIGNAL_LOW_MEMORY = 2,
  IREE_VM_SIGNAL_FORK = 3,
} iree_vm_signal_t;

enum iree_vm_source_location_format_flag_bits_e {
  IREE_VM_SOURCE_LOCATION_FORMAT_FLAG_NONE = 0u,
  IREE_VM_SOURCE_LOCATION_FORMAT_FLAG_SINGLE_LINE = 1u << 0,
};
typedef uint32_t iree_vm_source_location_format_flags_t;

// A source location a module resolves for a program counter.
typedef struct iree_vm_source_location_t {
  IREE_API_UNSTABLE
  void* self;
  uint64_t data[2];
  iree_status_t(IREE_API_PTR* format)(
      void* self, uint64_t data[2],
      iree_vm_source_location_format_flags_t flags,
      iree_string_builder_t* builder);
} iree_vm_source_location_t;

// The module interface. |self| is passed to every function.
typedef struct iree_vm_module_t {
  IREE_API_UNSTABLE
  void* self;
  iree_atomic_ref_count_t ref_count;
  void(IREE_API_PTR* destroy)(void* self);
  iree_string_view_t(IREE_API_PTR* name)(void* self);
  iree_vm_module_signature_t(IREE_API_PTR* signature)(void* self);
  iree_status_t(IREE_API_PTR* enumerate_dependencies)(
      void* self, iree_vm_module_dependency_callback_t callback,
      void* user_data);
  iree_status_t(IREE_API_PTR* get_module_attr)(void* self,
                                               iree_host_size_t index,
                                               iree_string_pair_t* out_attr);
  iree_status_t(IREE_API_PTR* lookup_function)(
      void* self, iree_vm_function_linkage_t linkage, iree_string_view_t name,
      const iree_vm_function_signature_t* expected_signature,
      iree_vm_function_t* out_function);
  iree_status_t(IREE_API_PTR* get_function)(
      void* self, iree_vm_function_linkage_t linkage, iree_host_size_t ordinal,
      iree_vm_function_t* out_function, iree_string_view_t* out_name,
      iree_vm_function_signature_t* out_signature);
  iree_status_t(IREE_API_PTR* get_function_attr)(
      void* self, iree_vm_function_linkage_t linkage, iree_host_size_t ordinal,
      iree_host_size_t index, iree_string_pair_t* out_attr);
  iree_status_t(IREE_API_PTR* resolve_source_location)(
      void* self, iree_vm_function_t function, iree_vm_source_offset_t pc,
      iree_vm_source_location_t* out_source_location);
  iree_status_t(IREE_API_PTR* alloc_state)(
      void* self, iree_allocator_t allocator,
      iree_vm_module_state_t** out_module_state);
  void(IREE_API_PTR* free_state)(void* self,
                                 iree_vm_module_state_t* module_state);
  iree_status_t(IREE_API_PTR* fork_state)(
      void* self, iree_vm_module_state_t* parent_state,
      iree_allocator_t allocator, iree_vm_module_state_t** out_child_state);
  iree_status_t(IREE_API_PTR* resolve_import)(
      void* self, iree_vm_module_state_t* module_state,
      iree_host_size_t ordinal, const iree_vm_function_t* function,
      const iree_vm_function_signature_t* signature);
  iree_status_t(IREE_API_PTR* notify)(void* self,
                                      iree_vm_module_state_t* module_state,
                                      iree_vm_signal_t signal);
  iree_status_t(IREE_API_PTR* begin_call)(void* self, iree_vm_stack_t* stack,
                                          iree_vm_function_call_t call);
  iree_status_t(IREE_API_PTR* resume_call)(void* self, iree_vm_stack_t* stack,
                                           iree_byte_span_t call_results);
} iree_vm_module_t;

IREE_API_EXPORT iree_status_t
iree_vm_module_initialize(iree_vm_module_t* module, void* self);
IREE_API_EXPORT void iree_vm_module_retain(iree_vm_module_t* module);
IREE_API_EXPORT void iree_vm_module_release(iree_vm_module_t* module);
IREE_API_EXPORT iree_string_view_t
iree_vm_module_name(const iree_vm_module_t* module);
IREE_API_EXPORT iree_vm_module_signature_t
iree_vm_module_signature(const iree_vm_module_t* module);
IREE_API_EXPORT iree_status_t iree_vm_module_lookup_function_by_name(
    const iree_vm_module_t* module, iree_vm_function_linkage_t linkage,
    iree_string_view_t name, iree_vm_function_t* out_function);
IREE_API_EXPORT iree_string_view_t
iree_vm_function_name(const iree_vm_function_t* function);
IREE_API_EXPORT iree_vm_function_signature_t
iree_vm_function_signature(const iree_vm_function_t* function);
IREE_API_EXPORT iree_string_view_t iree_vm_function_lookup_attr_by_name(
    const iree_vm_function_t* function, iree_string_view_t key);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

IREE_VM_DECLARE_CC_TYPE_ADAPTERS(iree_vm_module, iree_vm_module_t);

#endif  // IREE_VM_MODULE_H_
