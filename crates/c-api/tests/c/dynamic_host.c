// A C host loading the dynamic module library named on the command line
// with iree_vm_dynamic_module_load_from_file (base=35) and calling it
// from bytecode (dynamic_user.vmfb).

#include <stdio.h>

#include "iree/io/file_contents.h"
#include "iree/vm/api.h"
#include "iree/vm/bytecode/module.h"
#include "iree/vm/dynamic/module.h"

static iree_status_t call_i32(iree_vm_context_t* context, const char* name,
                              int32_t argument, int32_t* out_result) {
  iree_allocator_t allocator = iree_allocator_system();
  iree_vm_function_t function;
  IREE_RETURN_IF_ERROR(iree_vm_context_resolve_function(
      context, iree_make_cstring_view(name), &function));
  iree_vm_list_t* inputs = NULL;
  iree_vm_list_t* outputs = NULL;
  IREE_RETURN_IF_ERROR(iree_vm_list_create(iree_vm_make_undefined_type_def(),
                                           1, allocator, &inputs));
  IREE_RETURN_IF_ERROR(iree_vm_list_create(iree_vm_make_undefined_type_def(),
                                           1, allocator, &outputs));
  iree_vm_value_t value = iree_vm_value_make_i32(argument);
  iree_status_t status = iree_vm_list_push_value(inputs, &value);
  if (iree_status_is_ok(status)) {
    status = iree_vm_invoke(context, function, IREE_VM_INVOCATION_FLAG_NONE,
                            NULL, inputs, outputs, allocator);
  }
  if (iree_status_is_ok(status)) {
    status = iree_vm_list_get_value(outputs, 0, &value);
    *out_result = value.i32;
  }
  iree_vm_list_release(inputs);
  iree_vm_list_release(outputs);
  return status;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  iree_allocator_t allocator = iree_allocator_system();
  iree_vm_instance_t* instance = NULL;
  IREE_CHECK_OK(iree_vm_instance_create(IREE_VM_TYPE_CAPACITY_DEFAULT,
                                        allocator, &instance));
  iree_string_pair_t params[1] = {
      iree_make_cstring_pair("base", "35"),
  };
  iree_vm_module_t* dyn = NULL;
  IREE_CHECK_OK(iree_vm_dynamic_module_load_from_file(
      instance, iree_make_cstring_view(argv[1]), iree_string_view_empty(),
      IREE_ARRAYSIZE(params), params, allocator, &dyn));
  iree_io_file_contents_t* contents = NULL;
  IREE_CHECK_OK(iree_io_file_contents_read(iree_make_cstring_view(argv[2]),
                                           allocator, &contents));
  iree_vm_module_t* user = NULL;
  IREE_CHECK_OK(iree_vm_bytecode_module_create(
      instance, IREE_VM_BYTECODE_MODULE_FLAG_NONE, contents->const_buffer,
      iree_io_file_contents_deallocator(contents), allocator, &user));
  iree_vm_module_t* modules[] = {dyn, user};
  iree_vm_context_t* context = NULL;
  IREE_CHECK_OK(iree_vm_context_create_with_modules(
      instance, IREE_VM_CONTEXT_FLAG_NONE, IREE_ARRAYSIZE(modules), modules,
      allocator, &context));
  iree_vm_module_release(dyn);
  iree_vm_module_release(user);
  int32_t result = 0;
  IREE_CHECK_OK(call_i32(context, "user.add_base", 7, &result));
  fprintf(stdout, "add_base(7) = %d\n", result);
  iree_vm_context_release(context);
  iree_vm_instance_release(instance);
  return 0;
}
