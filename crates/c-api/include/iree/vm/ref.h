// iree-rs C API: reference-counted objects (`iree_vm_ref_t`), ref types and
// their registration; values, type definitions and variants. Names and
// layouts follow upstream IREE's `iree/vm/ref.h`, `value.h`, `type_def.h`
// and `variant.h`.
//
// The library's own objects (`vm.buffer`, `vm.list`, `hal.*`) count
// references inside the library: use the retain/release functions. Types
// registered from C keep upstream's intrusive counter at `offsetof_counter`
// words into the object.

#ifndef IREE_VM_REF_H_
#define IREE_VM_REF_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iree/base/api.h"
#include "iree/base/internal/atomics.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef struct iree_vm_instance_t iree_vm_instance_t;

#define IREE_VM_REF_TYPE_TAG_BITS 3
#define IREE_VM_REF_TYPE_TAG_BIT_MASK 0x7
#define IREE_VM_REF_TYPE_PTR_BITS \
  (sizeof(uintptr_t) * 8 - IREE_VM_REF_TYPE_TAG_BITS)
#define IREE_VM_REF_TYPE_PTR_BIT_MASK (~IREE_VM_REF_TYPE_TAG_BIT_MASK)
#define IREE_VM_REF_TYPE_DESCRIPTOR_ALIGNMENT 8
#define IREE_VM_REF_COUNTER_ALIGNMENT sizeof(iree_atomic_ref_count_t)

enum iree_vm_ref_type_bits_t {
  IREE_VM_REF_TYPE_NULL = 0,
  IREE_VM_REF_TYPE_ANY = UINTPTR_MAX ^ IREE_VM_REF_TYPE_TAG_BIT_MASK,
};

typedef void(IREE_API_PTR* iree_vm_ref_destroy_t)(void* ptr);

// Describes a ref type: how to destroy an object and where its counter is.
typedef iree_alignas(IREE_VM_REF_TYPE_DESCRIPTOR_ALIGNMENT) struct
    iree_vm_ref_type_descriptor_t {
  iree_vm_ref_destroy_t destroy;
  iree_string_view_t type_name;
  uintptr_t offsetof_counter : IREE_VM_REF_TYPE_TAG_BITS;
  uintptr_t reserved : IREE_VM_REF_TYPE_PTR_BITS;
} iree_vm_ref_type_descriptor_t;

// A descriptor address with the counter offset in the low bits.
typedef uintptr_t iree_vm_ref_type_t;

static inline iree_vm_ref_type_t iree_vm_make_ref_type(
    const iree_vm_ref_type_descriptor_t* descriptor) {
  return (iree_vm_ref_type_t)descriptor |
         (iree_vm_ref_type_t)descriptor->offsetof_counter;
}
static inline const iree_vm_ref_type_descriptor_t* iree_vm_ref_type_descriptor(
    iree_vm_ref_type_t type) {
  return (const iree_vm_ref_type_descriptor_t*)(type &
                                                IREE_VM_REF_TYPE_PTR_BIT_MASK);
}

IREE_API_EXPORT iree_string_view_t
iree_vm_ref_type_name(iree_vm_ref_type_t type);

// The header of objects of C-registered types.
typedef struct iree_vm_ref_object_t {
  iree_atomic_ref_count_t counter;
} iree_vm_ref_object_t;

typedef struct iree_vm_ref_t {
  void* ptr;
  iree_vm_ref_type_t type;
} iree_vm_ref_t;

IREE_API_EXPORT void iree_vm_ref_object_retain(void* ptr,
                                               iree_vm_ref_type_t type);
IREE_API_EXPORT void iree_vm_ref_object_release(void* ptr,
                                                iree_vm_ref_type_t type);

static inline iree_vm_ref_t iree_vm_ref_null(void) {
  iree_vm_ref_t ref = {NULL, IREE_VM_REF_TYPE_NULL};
  return ref;
}

IREE_API_EXPORT iree_status_t iree_vm_ref_wrap_assign(void* ptr,
                                                      iree_vm_ref_type_t type,
                                                      iree_vm_ref_t* out_ref);
IREE_API_EXPORT iree_status_t iree_vm_ref_wrap_retain(void* ptr,
                                                      iree_vm_ref_type_t type,
                                                      iree_vm_ref_t* out_ref);

static inline iree_status_t iree_vm_ref_check(const iree_vm_ref_t ref,
                                              iree_vm_ref_type_t type) {
  return IREE_LIKELY(ref.type == type)
             ? iree_ok_status()
             : iree_make_status(IREE_STATUS_INVALID_ARGUMENT,
                                ref.type == IREE_VM_REF_TYPE_NULL
                                    ? "ref is null"
                                    : "ref type mismatch");
}

IREE_API_EXPORT void iree_vm_ref_retain_inplace(iree_vm_ref_t* ref);
IREE_API_EXPORT void iree_vm_ref_retain(iree_vm_ref_t* ref,
                                        iree_vm_ref_t* out_ref);
IREE_API_EXPORT iree_status_t iree_vm_ref_retain_checked(
    iree_vm_ref_t* ref, iree_vm_ref_type_t type, iree_vm_ref_t* out_ref);
IREE_API_EXPORT void iree_vm_ref_retain_or_move(int is_move, iree_vm_ref_t* ref,
                                                iree_vm_ref_t* out_ref);
IREE_API_EXPORT iree_status_t iree_vm_ref_retain_or_move_checked(
    int is_move, iree_vm_ref_t* ref, iree_vm_ref_type_t type,
    iree_vm_ref_t* out_ref);
IREE_API_EXPORT void iree_vm_ref_release(iree_vm_ref_t* ref);
IREE_API_EXPORT void iree_vm_ref_assign(iree_vm_ref_t* ref,
                                        iree_vm_ref_t* out_ref);
IREE_API_EXPORT void iree_vm_ref_move(iree_vm_ref_t* ref,
                                      iree_vm_ref_t* out_ref);
IREE_API_EXPORT bool iree_vm_ref_is_null(const iree_vm_ref_t* ref);
IREE_API_EXPORT bool iree_vm_ref_equal(const iree_vm_ref_t* lhs,
                                       const iree_vm_ref_t* rhs);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

// Declares the registration variable and typed helpers of ref type |T|
// (`name_type()`, `name_isa()`, `name_retain_ref()`, ...). The library
// defines these for its own types; modules define theirs with
// IREE_VM_DEFINE_TYPE_ADAPTERS.
#define IREE_VM_DECLARE_TYPE_ADAPTERS(name, T)                              \
  IREE_API_EXPORT_VARIABLE iree_vm_ref_type_t name##_registration;          \
  static inline iree_vm_ref_type_t name##_type(void) {                      \
    return name##_registration;                                             \
  }                                                                         \
  static inline bool name##_isa(const iree_vm_ref_t ref) {                  \
    return name##_registration == ref.type;                                 \
  }                                                                         \
  IREE_API_EXPORT iree_vm_ref_t name##_retain_ref(T* value);                \
  IREE_API_EXPORT iree_vm_ref_t name##_move_ref(T* value);                  \
  static inline T* name##_deref(const iree_vm_ref_t ref) {                  \
    return IREE_LIKELY(name##_isa(ref)) ? (T*)ref.ptr : NULL;               \
  }                                                                         \
  IREE_API_EXPORT iree_status_t name##_check_deref(const iree_vm_ref_t ref, \
                                                   T** out_ptr);            \
  IREE_API_EXPORT iree_status_t name##_check_deref_or_null(                 \
      const iree_vm_ref_t ref, T** out_ptr);                                \
  IREE_VM_DECLARE_CC_TYPE_LOOKUP(name, T)

// Defines the registration variable and helpers declared above.
#define IREE_VM_DEFINE_TYPE_ADAPTERS(name, T)                               \
  iree_vm_ref_type_t name##_registration = 0;                               \
  IREE_API_EXPORT iree_vm_ref_t name##_retain_ref(T* value) {               \
    iree_vm_ref_t ref = {0};                                                \
    iree_vm_ref_wrap_retain(value, name##_type(), &ref);                    \
    return ref;                                                             \
  }                                                                         \
  IREE_API_EXPORT iree_vm_ref_t name##_move_ref(T* value) {                 \
    iree_vm_ref_t ref = {0};                                                \
    iree_vm_ref_wrap_assign(value, name##_type(), &ref);                    \
    return ref;                                                             \
  }                                                                         \
  IREE_API_EXPORT iree_status_t name##_check_deref(const iree_vm_ref_t ref, \
                                                   T** out_ptr) {           \
    IREE_RETURN_IF_ERROR(iree_vm_ref_check(ref, name##_type()));            \
    *out_ptr = (T*)ref.ptr;                                                 \
    return iree_ok_status();                                                \
  }                                                                         \
  IREE_API_EXPORT iree_status_t name##_check_deref_or_null(                 \
      const iree_vm_ref_t ref, T** out_ptr) {                               \
    if (ref.type != IREE_VM_REF_TYPE_NULL) {                                \
      IREE_RETURN_IF_ERROR(iree_vm_ref_check(ref, name##_type()));          \
      *out_ptr = (T*)ref.ptr;                                               \
    } else {                                                                \
      *out_ptr = NULL;                                                      \
    }                                                                       \
    return iree_ok_status();                                                \
  }

// C++ programs get upstream's header-only `iree::vm::ref<T>` when upstream's
// source tree is on the include path after this library's headers.
#if defined(__cplusplus) && defined(__has_include)
#if __has_include("iree/vm/ref_cc.h")
#include "iree/vm/ref_cc.h"
#define IREE_RS_HAVE_REF_CC 1
#endif
#endif
#if !defined(IREE_RS_HAVE_REF_CC)
#define IREE_VM_DECLARE_CC_TYPE_LOOKUP(name, T)
#define IREE_VM_DECLARE_CC_TYPE_ADAPTERS(name, T)
#endif

//===----------------------------------------------------------------------===//
// Values, type definitions and variants
//===----------------------------------------------------------------------===//

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef int32_t iree_vm_size_t;

typedef enum iree_vm_value_type_e {
  IREE_VM_VALUE_TYPE_NONE = 0,
  IREE_VM_VALUE_TYPE_I8 = 1,
  IREE_VM_VALUE_TYPE_I16 = 2,
  IREE_VM_VALUE_TYPE_I32 = 3,
  IREE_VM_VALUE_TYPE_I64 = 4,
  IREE_VM_VALUE_TYPE_F32 = 5,
  IREE_VM_VALUE_TYPE_F64 = 6,
  IREE_VM_VALUE_TYPE_MAX = IREE_VM_VALUE_TYPE_F64,
  IREE_VM_VALUE_TYPE_COUNT = IREE_VM_VALUE_TYPE_MAX + 1,
} iree_vm_value_type_t;

#define IREE_VM_VALUE_STORAGE_SIZE 8

typedef struct iree_vm_value_t {
  iree_vm_value_type_t type;
  union {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    uint8_t value_storage[IREE_VM_VALUE_STORAGE_SIZE];
  };
} iree_vm_value_t;

static inline iree_vm_value_t iree_vm_value_make_none(void) {
  iree_vm_value_t result;
  memset(&result, 0, sizeof(result));
  return result;
}
static inline iree_vm_value_t iree_vm_value_make_i8(int8_t value) {
  iree_vm_value_t result = iree_vm_value_make_none();
  result.type = IREE_VM_VALUE_TYPE_I8;
  result.i8 = value;
  return result;
}
static inline iree_vm_value_t iree_vm_value_make_i16(int16_t value) {
  iree_vm_value_t result = iree_vm_value_make_none();
  result.type = IREE_VM_VALUE_TYPE_I16;
  result.i16 = value;
  return result;
}
static inline iree_vm_value_t iree_vm_value_make_i32(int32_t value) {
  iree_vm_value_t result = iree_vm_value_make_none();
  result.type = IREE_VM_VALUE_TYPE_I32;
  result.i32 = value;
  return result;
}
static inline iree_vm_value_t iree_vm_value_make_i64(int64_t value) {
  iree_vm_value_t result = iree_vm_value_make_none();
  result.type = IREE_VM_VALUE_TYPE_I64;
  result.i64 = value;
  return result;
}
static inline iree_vm_value_t iree_vm_value_make_f32(float value) {
  iree_vm_value_t result = iree_vm_value_make_none();
  result.type = IREE_VM_VALUE_TYPE_F32;
  result.f32 = value;
  return result;
}
static inline iree_vm_value_t iree_vm_value_make_f64(double value) {
  iree_vm_value_t result = iree_vm_value_make_none();
  result.type = IREE_VM_VALUE_TYPE_F64;
  result.f64 = value;
  return result;
}
static inline int32_t iree_vm_value_get_i32(iree_vm_value_t* value) {
  return value->i32;
}
static inline int64_t iree_vm_value_get_i64(iree_vm_value_t* value) {
  return value->i64;
}
static inline float iree_vm_value_get_f32(iree_vm_value_t* value) {
  return value->f32;
}
static inline double iree_vm_value_get_f64(iree_vm_value_t* value) {
  return value->f64;
}

// A value type in the low bits or a ref type (descriptor) above them; both
// zero is the undefined type (lists of it hold anything).
typedef struct iree_vm_type_def_t {
  uintptr_t value_type_bits : IREE_VM_REF_TYPE_TAG_BITS;
  uintptr_t ref_type_bits : IREE_VM_REF_TYPE_PTR_BITS;
} iree_vm_type_def_t;

#define iree_vm_type_def_as_value(v) (iree_vm_value_type_t)((v).value_type_bits)
#define iree_vm_type_def_as_ref(v) \
  (((iree_vm_ref_type_t)(v).ref_type_bits) << IREE_VM_REF_TYPE_TAG_BITS)
#define iree_vm_type_def_is_value(v) \
  (iree_vm_type_def_as_value(v) != IREE_VM_VALUE_TYPE_NONE)
#define iree_vm_type_def_is_ref(v) \
  (iree_vm_type_def_as_ref(v) != IREE_VM_REF_TYPE_NULL)
#define iree_vm_type_def_is_variant(v)                        \
  (iree_vm_type_def_as_value(v) == IREE_VM_VALUE_TYPE_NONE && \
   iree_vm_type_def_as_ref(v) == IREE_VM_REF_TYPE_NULL)
#define iree_vm_type_def_is_undefined(v) iree_vm_type_def_is_variant(v)

static inline bool iree_vm_type_def_equal(iree_vm_type_def_t a,
                                          iree_vm_type_def_t b) {
  return a.value_type_bits == b.value_type_bits &&
         a.ref_type_bits == b.ref_type_bits;
}
static inline iree_vm_type_def_t iree_vm_make_undefined_type_def(void) {
  iree_vm_type_def_t result;
  result.value_type_bits = IREE_VM_VALUE_TYPE_NONE;
  result.ref_type_bits = IREE_VM_REF_TYPE_NULL;
  return result;
}
static inline iree_vm_type_def_t iree_vm_make_value_type_def(
    iree_vm_value_type_t value_type) {
  iree_vm_type_def_t result;
  result.value_type_bits = value_type;
  result.ref_type_bits = IREE_VM_REF_TYPE_NULL;
  return result;
}
static inline iree_vm_type_def_t iree_vm_make_ref_type_def(
    iree_vm_ref_type_t ref_type) {
  iree_vm_type_def_t result;
  result.value_type_bits = IREE_VM_VALUE_TYPE_NONE;
  result.ref_type_bits = ref_type >> IREE_VM_REF_TYPE_TAG_BITS;
  return result;
}

// A value, a ref, or nothing.
typedef struct iree_vm_variant_t {
  iree_vm_type_def_t type;
  union {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    iree_vm_ref_t ref;
    uint8_t value_storage[IREE_VM_VALUE_STORAGE_SIZE];
  };
} iree_vm_variant_t;

static inline iree_vm_variant_t iree_vm_variant_empty(void) {
  iree_vm_variant_t result;
  result.type = iree_vm_make_undefined_type_def();
  result.ref = iree_vm_ref_null();
  return result;
}
static inline bool iree_vm_variant_is_empty(iree_vm_variant_t variant) {
  return iree_vm_type_def_is_variant(variant.type);
}
static inline bool iree_vm_variant_is_value(iree_vm_variant_t variant) {
  return iree_vm_type_def_is_value(variant.type);
}
static inline bool iree_vm_variant_is_ref(iree_vm_variant_t variant) {
  return iree_vm_type_def_is_ref(variant.type);
}
static inline iree_vm_variant_t iree_vm_make_variant_value(
    iree_vm_value_t value) {
  iree_vm_variant_t result = iree_vm_variant_empty();
  result.type.value_type_bits = value.type;
  memcpy(result.value_storage, value.value_storage,
         sizeof(result.value_storage));
  return result;
}
static inline iree_vm_variant_t iree_vm_make_variant_ref_assign(
    iree_vm_ref_t ref) {
  iree_vm_variant_t result = iree_vm_variant_empty();
  result.type.ref_type_bits = ref.type >> IREE_VM_REF_TYPE_TAG_BITS;
  result.ref = ref;
  return result;
}
static inline iree_vm_value_t iree_vm_variant_value(iree_vm_variant_t variant) {
  iree_vm_value_t value;
  value.type = (iree_vm_value_type_t)variant.type.value_type_bits;
  memcpy(value.value_storage, variant.value_storage,
         sizeof(value.value_storage));
  return value;
}
static inline void iree_vm_variant_reset(iree_vm_variant_t* variant) {
  if (!variant) return;
  if (iree_vm_variant_is_ref(*variant)) {
    iree_vm_ref_release(&variant->ref);
  }
  *variant = iree_vm_variant_empty();
}

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_VM_REF_H_
