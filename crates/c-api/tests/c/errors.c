// Bad input through the C API: NULL arguments, unknown names, wrong ref
// types, out-of-range indices and malformed modules come back as statuses
// (never a crash); each line prints the code.

#include <stdio.h>
#include <string.h>

#include "iree/modules/hal/types.h"
#include "iree/runtime/api.h"
#include "iree/vm/bytecode/module.h"

static void expect(const char* label, iree_status_t status) {
  fprintf(stdout, "%s: %s\n", label,
          iree_status_code_string(iree_status_code(status)));
  iree_status_ignore(status);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  expect("instance without options",
         iree_runtime_instance_create(NULL, iree_allocator_system(), NULL));

  iree_runtime_instance_options_t options;
  iree_runtime_instance_options_initialize(&options);
  iree_runtime_instance_t* no_drivers = NULL;
  IREE_CHECK_OK(iree_runtime_instance_create(&options, iree_allocator_system(),
                                             &no_drivers));
  iree_hal_device_t* device = NULL;
  expect("device without drivers",
         iree_runtime_instance_try_create_default_device(
             no_drivers, iree_make_cstring_view("local-task"), &device));
  iree_runtime_instance_release(no_drivers);

  iree_runtime_instance_options_use_all_available_drivers(&options);
  iree_runtime_instance_t* instance = NULL;
  IREE_CHECK_OK(iree_runtime_instance_create(&options, iree_allocator_system(),
                                             &instance));
  expect("unknown driver", iree_runtime_instance_try_create_default_device(
                               instance, iree_make_cstring_view("nope"),
                               &device));
  IREE_CHECK_OK(iree_runtime_instance_try_create_default_device(
      instance, iree_make_cstring_view("local-sync"), &device));

  iree_runtime_session_options_t session_options;
  iree_runtime_session_options_initialize(&session_options);
  iree_runtime_session_t* session = NULL;
  expect("session without device",
         iree_runtime_session_create_with_device(
             instance, &session_options, NULL, iree_allocator_system(),
             &session));
  IREE_CHECK_OK(iree_runtime_session_create_with_device(
      instance, &session_options, device, iree_allocator_system(), &session));

  static const uint8_t garbage[64] = {1, 2, 3};
  expect("garbage module",
         iree_runtime_session_append_bytecode_module_from_memory(
             session, iree_make_const_byte_span(garbage, sizeof(garbage)),
             iree_allocator_null()));
  expect("missing file", iree_runtime_session_append_bytecode_module_from_file(
                             session, "/nonexistent/module.vmfb"));
  expect("module without instance",
         iree_vm_bytecode_module_create(
             NULL, IREE_VM_BYTECODE_MODULE_FLAG_NONE,
             iree_make_const_byte_span(garbage, sizeof(garbage)),
             iree_allocator_null(), iree_allocator_system(), NULL));
  IREE_CHECK_OK(
      iree_runtime_session_append_bytecode_module_from_file(session, argv[1]));

  iree_runtime_call_t call;
  expect("unknown function", iree_runtime_call_initialize_by_name(
                                 session, iree_make_cstring_view("module.nope"),
                                 &call));
  expect("unknown module", iree_runtime_call_initialize_by_name(
                               session, iree_make_cstring_view("nope.simple_mul"),
                               &call));
  IREE_CHECK_OK(iree_runtime_call_initialize_by_name(
      session, iree_make_cstring_view("module.simple_mul"), &call));
  expect("call without arguments", iree_runtime_call_invoke(&call, 0));
  expect("push NULL view",
         iree_runtime_call_inputs_push_back_buffer_view(&call, NULL));
  expect("pop from empty outputs",
         iree_runtime_call_outputs_pop_front_buffer_view(&call, NULL));

  // A list where a buffer view is expected.
  iree_vm_list_t* list = NULL;
  IREE_CHECK_OK(iree_vm_list_create(iree_vm_make_undefined_type_def(), 2,
                                    iree_allocator_system(), &list));
  iree_vm_ref_t list_ref = iree_vm_list_retain_ref(list);
  IREE_CHECK_OK(iree_vm_list_push_ref_move(iree_runtime_call_inputs(&call),
                                           &list_ref));
  IREE_CHECK_OK(iree_vm_list_push_ref_retain(iree_runtime_call_inputs(&call),
                                             &list_ref));
  expect("list for a tensor", iree_runtime_call_invoke(&call, 0));
  iree_hal_buffer_view_t* view = NULL;
  iree_vm_ref_t held = iree_vm_ref_null();
  IREE_CHECK_OK(
      iree_vm_list_get_ref_assign(iree_runtime_call_inputs(&call), 0, &held));
  expect("list as a buffer view", iree_hal_buffer_view_check_deref(held, &view));
  fprintf(stdout, "deref as view: %s\n",
          iree_hal_buffer_view_deref(held) ? "object" : "null");
  expect("index out of range",
         iree_vm_list_get_ref_assign(iree_runtime_call_inputs(&call), 9, &held));

  // A typed list refuses refs of another type.
  iree_vm_list_t* views = NULL;
  IREE_CHECK_OK(iree_vm_list_create(
      iree_vm_make_ref_type_def(iree_hal_buffer_view_type()), 1,
      iree_allocator_system(), &views));
  iree_vm_ref_t another = iree_vm_list_retain_ref(list);
  expect("list into a view list", iree_vm_list_push_ref_move(views, &another));
  iree_vm_ref_release(&another);
  iree_vm_value_t value = iree_vm_value_make_i32(1);
  expect("value into a view list", iree_vm_list_push_value(views, &value));
  iree_vm_list_release(views);
  iree_vm_list_release(list);

  iree_runtime_call_deinitialize(&call);
  iree_runtime_session_release(session);
  iree_hal_device_release(device);
  iree_runtime_instance_release(instance);
  fprintf(stdout, "done\n");
  return 0;
}
