// iree-rs C API: the high-level runtime API (`iree/runtime/api.h` of
// upstream IREE): instances, sessions and calls.

#ifndef IREE_RUNTIME_API_H_
#define IREE_RUNTIME_API_H_

#include "iree/base/api.h"
#include "iree/hal/api.h"
#include "iree/runtime/call.h"      // IWYU pragma: export
#include "iree/runtime/instance.h"  // IWYU pragma: export
#include "iree/runtime/session.h"   // IWYU pragma: export
#include "iree/vm/api.h"

#endif  // IREE_RUNTIME_API_H_
