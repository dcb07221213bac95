// iree-rs C API: `iree_vm_list_t`, growable lists of values or refs. Names
// follow upstream IREE's `iree/vm/list.h`.

#ifndef IREE_VM_LIST_H_
#define IREE_VM_LIST_H_

#include <stdint.h>

#include "iree/base/api.h"
#include "iree/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_vm_list_t iree_vm_list_t;

// A list of |element_type| (the undefined type: any value or ref).
IREE_API_EXPORT iree_status_t iree_vm_list_create(
    const iree_vm_type_def_t element_type, iree_host_size_t initial_capacity,
    iree_allocator_t allocator, iree_vm_list_t** out_list);
IREE_API_EXPORT void iree_vm_list_retain(iree_vm_list_t* list);
IREE_API_EXPORT void iree_vm_list_release(iree_vm_list_t* list);
IREE_API_EXPORT iree_vm_type_def_t
iree_vm_list_element_type(const iree_vm_list_t* list);
IREE_API_EXPORT iree_host_size_t
iree_vm_list_capacity(const iree_vm_list_t* list);
IREE_API_EXPORT iree_status_t
iree_vm_list_reserve(iree_vm_list_t* list, iree_host_size_t minimum_capacity);
IREE_API_EXPORT iree_host_size_t iree_vm_list_size(const iree_vm_list_t* list);
IREE_API_EXPORT iree_status_t iree_vm_list_resize(iree_vm_list_t* list,
                                                  iree_host_size_t new_size);
IREE_API_EXPORT void iree_vm_list_clear(iree_vm_list_t* list);

IREE_API_EXPORT iree_status_t iree_vm_list_get_value(
    const iree_vm_list_t* list, iree_host_size_t i, iree_vm_value_t* out_value);
IREE_API_EXPORT iree_status_t iree_vm_list_get_value_as(
    const iree_vm_list_t* list, iree_host_size_t i,
    iree_vm_value_type_t value_type, iree_vm_value_t* out_value);
IREE_API_EXPORT iree_status_t iree_vm_list_set_value(
    iree_vm_list_t* list, iree_host_size_t i, const iree_vm_value_t* value);
IREE_API_EXPORT iree_status_t iree_vm_list_push_value(
    iree_vm_list_t* list, const iree_vm_value_t* value);

// The object at |i| when it is of |type|, else NULL (borrowed).
IREE_API_EXPORT void* iree_vm_list_get_ref_deref(const iree_vm_list_t* list,
                                                 iree_host_size_t i,
                                                 iree_vm_ref_type_t type);
// The ref at |i|, borrowed (valid while the list holds it).
IREE_API_EXPORT iree_status_t iree_vm_list_get_ref_assign(
    const iree_vm_list_t* list, iree_host_size_t i, iree_vm_ref_t* out_value);
// The ref at |i| with a count for the caller.
IREE_API_EXPORT iree_status_t iree_vm_list_get_ref_retain(
    const iree_vm_list_t* list, iree_host_size_t i, iree_vm_ref_t* out_value);
IREE_API_EXPORT iree_status_t iree_vm_list_set_ref_retain(
    iree_vm_list_t* list, iree_host_size_t i, const iree_vm_ref_t* value);
IREE_API_EXPORT iree_status_t iree_vm_list_set_ref_move(iree_vm_list_t* list,
                                                        iree_host_size_t i,
                                                        iree_vm_ref_t* value);
IREE_API_EXPORT iree_status_t iree_vm_list_push_ref_retain(
    iree_vm_list_t* list, const iree_vm_ref_t* value);
IREE_API_EXPORT iree_status_t iree_vm_list_push_ref_move(iree_vm_list_t* list,
                                                         iree_vm_ref_t* value);
IREE_API_EXPORT iree_status_t
iree_vm_list_pop_front_ref_move(iree_vm_list_t* list, iree_vm_ref_t* out_value);

IREE_API_EXPORT iree_status_t iree_vm_list_get_variant_assign(
    const iree_vm_list_t* list, iree_host_size_t i,
    iree_vm_variant_t* out_variant);
IREE_API_EXPORT iree_status_t iree_vm_list_get_variant_retain(
    const iree_vm_list_t* list, iree_host_size_t i,
    iree_vm_variant_t* out_variant);
IREE_API_EXPORT iree_status_t iree_vm_list_set_variant_retain(
    iree_vm_list_t* list, iree_host_size_t i, const iree_vm_variant_t* variant);
IREE_API_EXPORT iree_status_t iree_vm_list_push_variant_retain(
    iree_vm_list_t* list, const iree_vm_variant_t* variant);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

IREE_VM_DECLARE_TYPE_ADAPTERS(iree_vm_list, iree_vm_list_t);

#endif  // IREE_VM_LIST_H_
