// A dynamic module library against upstream's dynamic module ABI (version
// 1): `iree_vm_dynamic_module_create` makes a native module `dyn` whose
// `base` function returns the `base=N` parameter given at load time
// (`--module=libdyn.so?base=N`). Its `iree_*` calls resolve to the host.

#include <stdlib.h>
#include <string.h>

#include "iree/vm/api.h"
#include "iree/vm/dynamic/api.h"

typedef struct dyn_module_t {
  iree_allocator_t allocator;
  int32_t base;
} dyn_module_t;

typedef struct {
  int32_t i0;
} abi_i_t;
typedef struct {
  int32_t i0;
  int32_t i1;
} abi_ii_t;

// 0ii_i
static iree_status_t shim_add(iree_vm_stack_t* stack, uint32_t flags,
                              iree_byte_span_t args, iree_byte_span_t rets,
                              iree_vm_native_function_target_t target,
                              void* module, void* state) {
  const abi_ii_t* in = (const abi_ii_t*)args.data;
  ((abi_i_t*)rets.data)->i0 = in->i0 + in->i1;
  return iree_ok_status();
}

// 0v_i
static iree_status_t shim_base(iree_vm_stack_t* stack, uint32_t flags,
                               iree_byte_span_t args, iree_byte_span_t rets,
                               iree_vm_native_function_target_t target,
                               void* module, void* state) {
  ((abi_i_t*)rets.data)->i0 = ((dyn_module_t*)module)->base;
  return iree_ok_status();
}

// 0v_v
static iree_status_t shim_fail(iree_vm_stack_t* stack, uint32_t flags,
                               iree_byte_span_t args, iree_byte_span_t rets,
                               iree_vm_native_function_target_t target,
                               void* module, void* state) {
  return iree_make_status(IREE_STATUS_UNKNOWN, "forced failure %d",
                          ((dyn_module_t*)module)->base);
}

static const iree_vm_native_export_descriptor_t dyn_exports[] = {
    {IREE_SVL("add"), IREE_SVL("0ii_i"), 0, NULL},
    {IREE_SVL("base"), IREE_SVL("0v_i"), 0, NULL},
    {IREE_SVL("fail"), IREE_SVL("0v_v"), 0, NULL},
};
static const iree_vm_native_function_ptr_t dyn_functions[] = {
    {shim_add, NULL},
    {shim_base, NULL},
    {shim_fail, NULL},
};
static const iree_vm_native_module_descriptor_t dyn_descriptor = {
    IREE_SVL("dyn"), 0, 0, NULL, 0, NULL, 0, NULL,
    IREE_ARRAYSIZE(dyn_exports), dyn_exports,
    IREE_ARRAYSIZE(dyn_functions), dyn_functions,
};

static void dyn_destroy(void* self) {
  dyn_module_t* module = (dyn_module_t*)self;
  iree_allocator_free(module->allocator, module);
}

IREE_VM_DYNAMIC_MODULE_EXPORT iree_status_t iree_vm_dynamic_module_create(
    iree_vm_dynamic_module_version_t max_version, iree_vm_instance_t* instance,
    iree_host_size_t param_count, const iree_string_pair_t* params,
    iree_allocator_t allocator, iree_vm_module_t** out_module) {
  if (max_version != IREE_VM_DYNAMIC_MODULE_VERSION_LATEST) {
    return iree_make_status(IREE_STATUS_UNIMPLEMENTED,
                            "unsupported runtime version %u", max_version);
  }
  dyn_module_t* module = NULL;
  IREE_RETURN_IF_ERROR(
      iree_allocator_malloc(allocator, sizeof(*module), (void**)&module));
  module->allocator = allocator;
  for (iree_host_size_t i = 0; i < param_count; ++i) {
    if (iree_string_view_equal(params[i].key, IREE_SV("base"))) {
      char value[32] = {0};
      memcpy(value, params[i].value.data,
             params[i].value.size < 31 ? params[i].value.size : 31);
      module->base = atoi(value);
    }
  }
  iree_vm_module_t interface;
  IREE_RETURN_IF_ERROR(iree_vm_module_initialize(&interface, module));
  interface.destroy = dyn_destroy;
  return iree_vm_native_module_create(&interface, &dyn_descriptor, instance,
                                      allocator, out_module);
}
