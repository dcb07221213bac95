// iree-rs C API: the atomic reference count of ref objects, with upstream
// IREE's names (`iree_atomic_ref_count_t`, `IREE_ATOMIC_VAR_INIT`).

#ifndef IREE_BASE_INTERNAL_ATOMICS_H_
#define IREE_BASE_INTERNAL_ATOMICS_H_

#include <stdint.h>

#include "iree/base/attributes.h"

#define IREE_ATOMIC_VAR_INIT(value) (value)

// A 32-bit counter accessed with the compiler's atomic builtins.
typedef int32_t iree_atomic_int32_t;
typedef uint32_t iree_atomic_uint32_t;
typedef iree_atomic_int32_t iree_atomic_ref_count_t;

#define iree_atomic_ref_count_init_value(count_ptr, value) \
  (*(count_ptr) = (value))
#define iree_atomic_ref_count_init(count_ptr) \
  iree_atomic_ref_count_init_value((count_ptr), 1)
#define iree_atomic_ref_count_inc(count_ptr) \
  ((void)__atomic_fetch_add((count_ptr), 1, __ATOMIC_RELAXED))
// Returns the count before the decrement (1 means it reached zero).
#define iree_atomic_ref_count_dec(count_ptr) \
  __atomic_fetch_sub((count_ptr), 1, __ATOMIC_ACQ_REL)

#endif  // IREE_BASE_INTERNAL_ATOMICS_H_
