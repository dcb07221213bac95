// COMPILE: --compile-mode=vm
// vm.yield and vm.call.yieldable. A yield that executes makes upstream's
// iree-run-module spin forever (iree_vm_invoke gets DEFERRED with no wait
// frame, and iree_vm_resume_invoke keeps returning DEFERRED without
// resuming), so the cases only run paths on which nothing yields; the ops
// are still in the module.
vm.module @yield {
  // Yields only when %do_yield is non-zero.
  vm.export @maybe_yield
  vm.func @maybe_yield(%do_yield: i32, %v: i32) -> i32 {
    %c1 = vm.const.i32 1
    %a = vm.add.i32 %v, %c1 : i32
    vm.cond_br %do_yield, ^yield, ^done(%a : i32)
  ^yield:
    %b = vm.add.i32 %a, %c1 : i32
    vm.yield ^done(%b : i32)
  ^done(%r: i32):
    vm.return %r : i32
  }

  // A callee that may yield, called with call.yieldable; results arrive as
  // block arguments of the resume block.
  vm.func private @maybe_yield_callee(%do_yield: i32, %v: i64) -> (i64, i32) attributes {inlining_policy = #util.inline.never} {
    %c2 = vm.const.i64 2
    %m = vm.mul.i64 %v, %c2 : i64
    vm.cond_br %do_yield, ^yield, ^done
  ^yield:
    vm.yield ^done
  ^done:
    vm.return %m, %do_yield : i64, i32
  }
  vm.export @call_yieldable
  vm.func @call_yieldable(%do_yield: i32, %v: i64) -> (i32, i64) {
    vm.call.yieldable @maybe_yield_callee(%do_yield, %v) : (i32, i64) -> ^resume(i64, i32)
  ^resume(%r: i64, %y: i32):
    vm.return %y, %r : i32, i64
  }
  // call.yieldable of a function with no results.
  vm.func private @void_callee(%b: !vm.buffer) attributes {inlining_policy = #util.inline.never} {
    %c0 = vm.const.i64 0
    %c9 = vm.const.i32 9
    vm.buffer.store.i8 %c9, %b[%c0] : i32 -> !vm.buffer
    vm.return
  }
  vm.export @call_yieldable_void
  vm.func @call_yieldable_void() -> i32 {
    %c1 = vm.const.i64 1
    %a1 = vm.const.i32 1
    %b = vm.buffer.alloc %c1, %a1 : !vm.buffer
    vm.call.yieldable @void_callee(%b) : (!vm.buffer) -> ^resume()
  ^resume:
    %c0 = vm.const.i64 0
    %v = vm.buffer.load.i8.u %b[%c0] : !vm.buffer -> i32
    vm.return %v : i32
  }
}
