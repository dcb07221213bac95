// COMPILE: --compile-mode=vm
// vm.call.variadic and vm.call.variadic.yieldable. Variadic calls can only
// target imports, and a bytecode module cannot export a variadic function,
// so these reach the native `hal` module, which iree-run-module creates
// (with a device, `local-task` unless --device says otherwise) when a
// module imports it:
//   hal.fence.join(flags: i64, fences: !hal.fence ...) -> !hal.fence
//   hal.fence.await(timeout_millis: i32, flags: i64, fences: !hal.fence ...) -> i32
// fence.await is declared {vm.yield}; with already-signaled (or no) fences
// it completes without yielding.
vm.module @hal_variadic {
  vm.import private @hal.devices.get(%index : i32) -> !vm.ref<!hal.device>
  vm.import private @hal.fence.create(%device : !vm.ref<!hal.device>, %flags : i64) -> !vm.ref<!hal.fence>
  vm.import private @hal.fence.signal(%fence : !vm.ref<!hal.fence>)
  vm.import private @hal.fence.query(%fence : !vm.ref<!hal.fence>) -> i32
  vm.import private @hal.fence.join(%flags : i64, %fences : !vm.ref<!hal.fence> ...) -> !vm.ref<!hal.fence>
  vm.import private @hal.fence.await(%timeout_millis : i32, %flags : i64, %fences : !vm.ref<!hal.fence> ...) -> i32 attributes {vm.yield}

  vm.func private @new_fence(%signal: i32) -> !vm.ref<!hal.fence> attributes {inlining_policy = #util.inline.never} {
    %c0 = vm.const.i32 0
    %f0 = vm.const.i64 0
    %device = vm.call @hal.devices.get(%c0) : (i32) -> !vm.ref<!hal.device>
    %fence = vm.call @hal.fence.create(%device, %f0) : (!vm.ref<!hal.device>, i64) -> !vm.ref<!hal.fence>
    vm.cond_br %signal, ^signal, ^done
  ^signal:
    vm.call @hal.fence.signal(%fence) : (!vm.ref<!hal.fence>) -> ()
    vm.br ^done
  ^done:
    vm.return %fence : !vm.ref<!hal.fence>
  }

  // Joins zero, one or two fences (signaled per %sig_a/%sig_b) and queries
  // the result: 0 = OK (signaled), otherwise the status code (DEFERRED = 17
  // while pending); -1 when the join returned null.
  vm.export @join
  vm.func @join(%count: i32, %sig_a: i32, %sig_b: i32) -> i32 {
    %f0 = vm.const.i64 0
    %a = vm.call @new_fence(%sig_a) : (i32) -> !vm.ref<!hal.fence>
    %b = vm.call @new_fence(%sig_b) : (i32) -> !vm.ref<!hal.fence>
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %is1 = vm.cmp.eq.i32 %count, %c1 : i32
    %is2 = vm.cmp.eq.i32 %count, %c2 : i32
    vm.cond_br %is2, ^two, ^not_two
  ^two:
    %j2 = vm.call.variadic @hal.fence.join(%f0, [%a, %b]) : (i64, !vm.ref<!hal.fence> ...) -> !vm.ref<!hal.fence>
    vm.br ^query(%j2 : !vm.ref<!hal.fence>)
  ^not_two:
    vm.cond_br %is1, ^one, ^zero
  ^one:
    %j1 = vm.call.variadic @hal.fence.join(%f0, [%a]) : (i64, !vm.ref<!hal.fence> ...) -> !vm.ref<!hal.fence>
    vm.br ^query(%j1 : !vm.ref<!hal.fence>)
  ^zero:
    %j0 = vm.call.variadic @hal.fence.join(%f0, []) : (i64, !vm.ref<!hal.fence> ...) -> !vm.ref<!hal.fence>
    vm.br ^query(%j0 : !vm.ref<!hal.fence>)
  ^query(%j: !vm.ref<!hal.fence>):
    %nz = vm.cmp.nz.ref %j : !vm.ref<!hal.fence>
    vm.cond_br %nz, ^some, ^none
  ^some:
    %s = vm.call @hal.fence.query(%j) : (!vm.ref<!hal.fence>) -> i32
    vm.return %s : i32
  ^none:
    %m1 = vm.const.i32 -1
    vm.return %m1 : i32
  }

  // Awaits two fences (signaled per %sig_a/%sig_b) with a timeout; returns
  // the await status (0 OK, 4 DEADLINE_EXCEEDED).
  vm.export @await
  vm.func @await(%timeout_ms: i32, %sig_a: i32, %sig_b: i32) -> i32 {
    %f0 = vm.const.i64 0
    %a = vm.call @new_fence(%sig_a) : (i32) -> !vm.ref<!hal.fence>
    %b = vm.call @new_fence(%sig_b) : (i32) -> !vm.ref<!hal.fence>
    // The custom syntax of call.variadic.yieldable cannot carry its
    // segment_sizes property, so the generic op form is used.
    "vm.call.variadic.yieldable"(%timeout_ms, %f0, %a, %b)[^resume] <{callee = @hal.fence.await, segment_sizes = dense<[-1, -1, 2]> : vector<3xi16>, segment_types = [i32, i64, !vm.ref<!hal.fence>], result_types = [i32]}> : (i32, i64, !vm.ref<!hal.fence>, !vm.ref<!hal.fence>) -> ()
  ^resume(%status: i32):
    vm.return %status : i32
  }
  // Awaits no fences at all.
  vm.export @await_none
  vm.func @await_none(%timeout_ms: i32) -> i32 {
    %f0 = vm.const.i64 0
    "vm.call.variadic.yieldable"(%timeout_ms, %f0)[^resume] <{callee = @hal.fence.await, segment_sizes = dense<[-1, -1, 0]> : vector<3xi16>, segment_types = [i32, i64, !vm.ref<!hal.fence>], result_types = [i32]}> : (i32, i64) -> ()
  ^resume(%status: i32):
    vm.return %status : i32
  }
}
