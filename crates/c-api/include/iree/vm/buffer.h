// iree-rs C API: `iree_vm_buffer_t`, byte buffers (`!vm.buffer`). Names and
// the public layout follow upstream IREE's `iree/vm/buffer.h`; buffers are
// made by the library (iree_vm_buffer_create, or by the VM).

#ifndef IREE_VM_BUFFER_H_
#define IREE_VM_BUFFER_H_

#include <stdint.h>

#include "iree/base/api.h"
#include "iree/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

enum iree_vm_buffer_access_bits_t {
  IREE_VM_BUFFER_ACCESS_MUTABLE = 1u << 0,
  IREE_VM_BUFFER_ACCESS_ORIGIN_MODULE = 1u << 1,
  IREE_VM_BUFFER_ACCESS_ORIGIN_GUEST = 1u << 2,
  IREE_VM_BUFFER_ACCESS_ORIGIN_HOST = 1u << 3,
};
typedef uint32_t iree_vm_buffer_access_t;

typedef struct iree_vm_module_t iree_vm_module_t;

typedef struct iree_vm_buffer_t {
  iree_vm_ref_object_t ref_object;
  iree_vm_buffer_access_t access;
  iree_byte_span_t data;
  iree_allocator_t allocator;
  iree_vm_module_t* storage_module;
} iree_vm_buffer_t;

IREE_API_EXPORT iree_status_t
iree_vm_buffer_create(iree_vm_buffer_access_t access, iree_host_size_t length,
                      iree_host_size_t alignment, iree_allocator_t allocator,
                      iree_vm_buffer_t** out_buffer);
IREE_API_EXPORT void iree_vm_buffer_retain(iree_vm_buffer_t* buffer);
IREE_API_EXPORT void iree_vm_buffer_release(iree_vm_buffer_t* buffer);
IREE_API_EXPORT iree_host_size_t
iree_vm_buffer_length(const iree_vm_buffer_t* buffer);
IREE_API_EXPORT uint8_t* iree_vm_buffer_data(const iree_vm_buffer_t* buffer);
IREE_API_EXPORT iree_byte_span_t
iree_vm_buffer_contents(const iree_vm_buffer_t* buffer);
IREE_API_EXPORT iree_const_byte_span_t
iree_vm_buffer_const_contents(const iree_vm_buffer_t* buffer);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

IREE_VM_DECLARE_TYPE_ADAPTERS(iree_vm_buffer, iree_vm_buffer_t);

#endif  // IREE_VM_BUFFER_H_
