// iree-rs C API: build configuration visible to programs: the host and
// device size types and the status mode. Same names and defaults as
// upstream IREE's `iree/base/config.h`.

#ifndef IREE_BASE_CONFIG_H_
#define IREE_BASE_CONFIG_H_

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include "iree/base/target_platform.h"

// Sizes of host memory (`size_t`).
#if !defined(IREE_HOST_SIZE_T)
#define IREE_HOST_SIZE_T size_t
#define PRIhsz "zu"
#endif  // !IREE_HOST_SIZE_T
typedef IREE_HOST_SIZE_T iree_host_size_t;
#define IREE_HOST_SIZE_MAX \
  ((iree_host_size_t)(sizeof(iree_host_size_t) == 4 ? UINT32_MAX : UINT64_MAX))

// Sizes of device memory (always 64 bits in this library).
#if !defined(IREE_DEVICE_SIZE_T)
#define IREE_DEVICE_SIZE_T uint64_t
#define PRIdsz PRIu64
#endif  // !IREE_DEVICE_SIZE_T
typedef IREE_DEVICE_SIZE_T iree_device_size_t;
#define IREE_DEVICE_SIZE_MAX UINT64_MAX

// How much a status carries (0: code only, 1: + source location,
// 2: + messages and annotations, 3: + stack traces). The library keeps
// messages in every mode; the mode only changes what the macros in user
// code do (mode 0 makes statuses plain codes, as upstream).
#if !defined(IREE_STATUS_MODE)
#ifdef NDEBUG
#define IREE_STATUS_MODE 2
#else
#define IREE_STATUS_MODE 3
#endif  // NDEBUG
#endif  // !IREE_STATUS_MODE

#if !defined(IREE_STATISTICS_ENABLE)
#define IREE_STATISTICS_ENABLE 0
#endif

#endif  // IREE_BASE_CONFIG_H_
