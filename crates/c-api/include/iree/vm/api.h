// iree-rs C API: the VM (`iree/vm/api.h` of upstream IREE).

#ifndef IREE_VM_API_H_
#define IREE_VM_API_H_

#include "iree/base/api.h"
#include "iree/vm/buffer.h"      // IWYU pragma: export
#include "iree/vm/context.h"     // IWYU pragma: export
#include "iree/vm/instance.h"    // IWYU pragma: export
#include "iree/vm/invocation.h"  // IWYU pragma: export
#include "iree/vm/list.h"        // IWYU pragma: export
#include "iree/vm/module.h"      // IWYU pragma: export
#include "iree/vm/native_module.h"  // IWYU pragma: export
#include "iree/vm/ref.h"         // IWYU pragma: export
#include "iree/vm/stack.h"       // IWYU pragma: export

#endif  // IREE_VM_API_H_
