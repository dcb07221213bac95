// iree-rs C API: NUMA queries (`iree/base/threading/numa.h` of upstream
// IREE), as much of it as device setup needs.

#ifndef IREE_BASE_THREADING_NUMA_H_
#define IREE_BASE_THREADING_NUMA_H_

#include "iree/base/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t iree_numa_node_id_t;
#define IREE_NUMA_NODE_ANY ((iree_numa_node_id_t)UINT32_MAX)

// The number of NUMA nodes online (1 where the platform reports none).
IREE_API_EXPORT iree_host_size_t iree_numa_node_count(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // IREE_BASE_THREADING_NUMA_H_
