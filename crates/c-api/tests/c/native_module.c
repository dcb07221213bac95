// A VM module written in C against the native module API (what upstream's
// samples/custom_module/basic does with its C++ wrapper): a ref type
// defined in C, byte buffers read as strings, scalar arguments, per-context
// state, and a bytecode module importing it. Run with custom_user.vmfb.

#include <stdio.h>
#include <string.h>

#include "iree/io/file_contents.h"
#include "iree/vm/api.h"
#include "iree/vm/bytecode/module.h"

//===----------------------------------------------------------------------===//
// custom.string: a ref type defined in C
//===----------------------------------------------------------------------===//

typedef struct custom_string_t {
  iree_vm_ref_object_t ref_object;
  iree_allocator_t allocator;
  iree_host_size_t length;
  char data[];
} custom_string_t;

IREE_VM_DECLARE_TYPE_ADAPTERS(custom_string, custom_string_t);
IREE_VM_DEFINE_TYPE_ADAPTERS(custom_string, custom_string_t);

static int destroyed_strings = 0;

static void custom_string_destroy(void* ptr) {
  custom_string_t* string = (custom_string_t*)ptr;
  ++destroyed_strings;
  iree_allocator_free(string->allocator, string);
}

static iree_vm_ref_type_descriptor_t custom_string_descriptor = {0};

static iree_status_t custom_string_create(iree_const_byte_span_t value,
                                          iree_allocator_t allocator,
                                          custom_string_t** out_string) {
  custom_string_t* string = NULL;
  IREE_RETURN_IF_ERROR(iree_allocator_malloc(
      allocator, sizeof(*string) + value.data_length, (void**)&string));
  string->ref_object.counter = IREE_ATOMIC_VAR_INIT(1);
  string->allocator = allocator;
  string->length = value.data_length;
  memcpy(string->data, value.data, value.data_length);
  *out_string = string;
  return iree_ok_status();
}

//===----------------------------------------------------------------------===//
// The module: state, shims and targets
//===----------------------------------------------------------------------===//

typedef struct custom_state_t {
  iree_allocator_t allocator;
  int calls;
} custom_state_t;

static iree_status_t custom_alloc_state(void* self, iree_allocator_t allocator,
                                        iree_vm_module_state_t** out_state) {
  custom_state_t* state = NULL;
  IREE_RETURN_IF_ERROR(
      iree_allocator_malloc(allocator, sizeof(*state), (void**)&state));
  state->allocator = allocator;
  *out_state = (iree_vm_module_state_t*)state;
  return iree_ok_status();
}

static void custom_free_state(void* self, iree_vm_module_state_t* state) {
  custom_state_t* custom = (custom_state_t*)state;
  fprintf(stdout, "state freed after %d calls\n", custom->calls);
  iree_allocator_free(custom->allocator, custom);
}

// Argument and result layouts of the calling conventions used below.
typedef struct {
  iree_vm_ref_t r0;
} abi_r_t;
typedef struct {
  int64_t i0;
} abi_I_t;
typedef struct {
  int32_t i0;
  int64_t i1;
} abi_iI_t;

// 0r_r: string.create(!vm.buffer) -> !custom.string
static iree_status_t shim_create(iree_vm_stack_t* stack, uint32_t flags,
                                 iree_byte_span_t args, iree_byte_span_t rets,
                                 iree_vm_native_function_target_t target,
                                 void* module, void* state) {
  custom_state_t* custom = (custom_state_t*)state;
  ++custom->calls;
  if (args.data_length != sizeof(abi_r_t) ||
      rets.data_length != sizeof(abi_r_t)) {
    return iree_make_status(IREE_STATUS_INVALID_ARGUMENT, "bad buffers");
  }
  iree_vm_buffer_t* buffer = NULL;
  IREE_RETURN_IF_ERROR(
      iree_vm_buffer_check_deref(((abi_r_t*)args.data)->r0, &buffer));
  custom_string_t* string = NULL;
  IREE_RETURN_IF_ERROR(custom_string_create(iree_vm_buffer_const_contents(buffer),
                                            custom->allocator, &string));
  ((abi_r_t*)rets.data)->r0 = custom_string_move_ref(string);
  return iree_ok_status();
}

// 0r_I: string.length(!custom.string) -> i64
static iree_status_t shim_length(iree_vm_stack_t* stack, uint32_t flags,
                                 iree_byte_span_t args, iree_byte_span_t rets,
                                 iree_vm_native_function_target_t target,
                                 void* module, void* state) {
  ++((custom_state_t*)state)->calls;
  custom_string_t* string = NULL;
  IREE_RETURN_IF_ERROR(
      custom_string_check_deref(((abi_r_t*)args.data)->r0, &string));
  ((abi_I_t*)rets.data)->i0 = (int64_t)string->length;
  return iree_ok_status();
}

// 0r_v: string.print(!custom.string)
static iree_status_t shim_print(iree_vm_stack_t* stack, uint32_t flags,
                                iree_byte_span_t args, iree_byte_span_t rets,
                                iree_vm_native_function_target_t target,
                                void* module, void* state) {
  ++((custom_state_t*)state)->calls;
  custom_string_t* string = NULL;
  IREE_RETURN_IF_ERROR(
      custom_string_check_deref(((abi_r_t*)args.data)->r0, &string));
  fprintf(stdout, "PRINT %.*s\n", (int)string->length, string->data);
  return iree_ok_status();
}

// 0iI_I: add(i32, i64) -> i64
static iree_status_t shim_add(iree_vm_stack_t* stack, uint32_t flags,
                              iree_byte_span_t args, iree_byte_span_t rets,
                              iree_vm_native_function_target_t target,
                              void* module, void* state) {
  ++((custom_state_t*)state)->calls;
  if (args.data_length != sizeof(abi_iI_t)) {
    return iree_make_status(IREE_STATUS_INVALID_ARGUMENT,
                            "expected %zu argument bytes, got %zu",
                            sizeof(abi_iI_t), (size_t)args.data_length);
  }
  const abi_iI_t* in = (const abi_iI_t*)args.data;
  ((abi_I_t*)rets.data)->i0 = (int64_t)in->i0 + in->i1;
  return iree_ok_status();
}

static const iree_vm_native_export_descriptor_t custom_exports[] = {
    {IREE_SVL("add"), IREE_SVL("0iI_I"), 0, NULL},
    {IREE_SVL("string.create"), IREE_SVL("0r_r"), 0, NULL},
    {IREE_SVL("string.length"), IREE_SVL("0r_I"), 0, NULL},
    {IREE_SVL("string.print"), IREE_SVL("0r_v"), 0, NULL},
};
static const iree_vm_native_function_ptr_t custom_functions[] = {
    {shim_add, NULL},
    {shim_create, NULL},
    {shim_length, NULL},
    {shim_print, NULL},
};
static const iree_vm_native_module_descriptor_t custom_descriptor = {
    IREE_SVL("custom"),
    0,
    0,
    NULL,
    0,
    NULL,
    0,
    NULL,
    IREE_ARRAYSIZE(custom_exports),
    custom_exports,
    IREE_ARRAYSIZE(custom_functions),
    custom_functions,
};

static iree_status_t custom_module_create(iree_vm_instance_t* instance,
                                          iree_vm_module_t** out_module) {
  custom_string_descriptor.destroy = custom_string_destroy;
  custom_string_descriptor.type_name = IREE_SV("custom.string");
  custom_string_descriptor.offsetof_counter =
      offsetof(custom_string_t, ref_object.counter) /
      IREE_VM_REF_COUNTER_ALIGNMENT;
  IREE_RETURN_IF_ERROR(iree_vm_instance_register_type(
      instance, &custom_string_descriptor, &custom_string_registration));
  iree_vm_module_t interface;
  IREE_RETURN_IF_ERROR(iree_vm_module_initialize(&interface, NULL));
  interface.alloc_state = custom_alloc_state;
  interface.free_state = custom_free_state;
  return iree_vm_native_module_create(&interface, &custom_descriptor, instance,
                                      iree_allocator_system(), out_module);
}

//===----------------------------------------------------------------------===//
// The host
//===----------------------------------------------------------------------===//

static iree_status_t run(const char* module_path) {
  iree_allocator_t allocator = iree_allocator_system();
  iree_vm_instance_t* instance = NULL;
  IREE_RETURN_IF_ERROR(iree_vm_instance_create(IREE_VM_TYPE_CAPACITY_DEFAULT,
                                               allocator, &instance));
  iree_vm_module_t* custom = NULL;
  IREE_RETURN_IF_ERROR(custom_module_create(instance, &custom));
  iree_string_view_t name = iree_vm_module_name(custom);
  iree_vm_module_signature_t signature = iree_vm_module_signature(custom);
  fprintf(stdout, "module %.*s: %zu exports\n", (int)name.size, name.data,
          (size_t)signature.export_function_count);

  iree_io_file_contents_t* contents = NULL;
  IREE_RETURN_IF_ERROR(iree_io_file_contents_read(
      iree_make_cstring_view(module_path), allocator, &contents));
  iree_vm_module_t* user = NULL;
  IREE_RETURN_IF_ERROR(iree_vm_bytecode_module_create(
      instance, IREE_VM_BYTECODE_MODULE_FLAG_NONE, contents->const_buffer,
      iree_io_file_contents_deallocator(contents), allocator, &user));

  iree_vm_module_t* modules[] = {custom, user};
  iree_vm_context_t* context = NULL;
  IREE_RETURN_IF_ERROR(iree_vm_context_create_with_modules(
      instance, IREE_VM_CONTEXT_FLAG_NONE, IREE_ARRAYSIZE(modules), modules,
      allocator, &context));
  iree_vm_module_release(user);
  iree_vm_module_release(custom);

  iree_vm_list_t* inputs = NULL;
  iree_vm_list_t* outputs = NULL;
  IREE_RETURN_IF_ERROR(iree_vm_list_create(
      iree_vm_make_value_type_def(IREE_VM_VALUE_TYPE_I64), 1, allocator,
      &inputs));
  IREE_RETURN_IF_ERROR(iree_vm_list_create(iree_vm_make_undefined_type_def(),
                                           1, allocator, &outputs));
  iree_vm_value_t n = iree_vm_value_make_i64(30);
  IREE_RETURN_IF_ERROR(iree_vm_list_push_value(inputs, &n));

  iree_vm_function_t main_function;
  IREE_RETURN_IF_ERROR(iree_vm_context_resolve_function(
      context, iree_make_cstring_view("user.main"), &main_function));
  IREE_RETURN_IF_ERROR(iree_vm_invoke(context, main_function,
                                      IREE_VM_INVOCATION_FLAG_NONE, NULL,
                                      inputs, outputs, allocator));
  iree_vm_value_t result;
  IREE_RETURN_IF_ERROR(iree_vm_list_get_value(outputs, 0, &result));
  fprintf(stdout, "main(30) = %lld\n", (long long)result.i64);

  // A ref of the C type comes back out of the VM.
  iree_vm_list_clear(outputs);
  iree_vm_function_t make_function;
  IREE_RETURN_IF_ERROR(iree_vm_context_resolve_function(
      context, iree_make_cstring_view("user.make"), &make_function));
  IREE_RETURN_IF_ERROR(iree_vm_invoke(context, make_function,
                                      IREE_VM_INVOCATION_FLAG_NONE, NULL, NULL,
                                      outputs, allocator));
  iree_vm_ref_t made = iree_vm_ref_null();
  IREE_RETURN_IF_ERROR(iree_vm_list_get_ref_retain(outputs, 0, &made));
  custom_string_t* string = custom_string_deref(made);
  iree_string_view_t type_name = iree_vm_ref_type_name(made.type);
  fprintf(stdout, "make() = %.*s of type %.*s\n", string ? (int)string->length : 0,
          string ? string->data : "", (int)type_name.size, type_name.data);
  iree_vm_ref_release(&made);

  // Calling the C module directly through the context.
  iree_vm_function_t add_function;
  IREE_RETURN_IF_ERROR(iree_vm_context_resolve_function(
      context, iree_make_cstring_view("custom.add"), &add_function));
  iree_vm_list_t* add_inputs = NULL;
  IREE_RETURN_IF_ERROR(iree_vm_list_create(iree_vm_make_undefined_type_def(),
                                           2, allocator, &add_inputs));
  iree_vm_value_t a = iree_vm_value_make_i32(40);
  iree_vm_value_t b = iree_vm_value_make_i64(2);
  IREE_RETURN_IF_ERROR(iree_vm_list_push_value(add_inputs, &a));
  IREE_RETURN_IF_ERROR(iree_vm_list_push_value(add_inputs, &b));
  iree_vm_list_clear(outputs);
  IREE_RETURN_IF_ERROR(iree_vm_invoke(context, add_function,
                                      IREE_VM_INVOCATION_FLAG_NONE, NULL,
                                      add_inputs, outputs, allocator));
  IREE_RETURN_IF_ERROR(iree_vm_list_get_value(outputs, 0, &result));
  fprintf(stdout, "custom.add(40, 2) = %lld\n", (long long)result.i64);

  iree_vm_list_release(add_inputs);
  iree_vm_list_release(inputs);
  iree_vm_list_release(outputs);
  iree_vm_context_release(context);
  iree_vm_instance_release(instance);
  fprintf(stdout, "strings destroyed: %d\n", destroyed_strings);
  return iree_ok_status();
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  iree_status_t status = run(argv[1]);
  if (!iree_status_is_ok(status)) {
    iree_status_fprint(stderr, status);
    return (int)iree_status_consume_code(status);
  }
  return 0;
}
