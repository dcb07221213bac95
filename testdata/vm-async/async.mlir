// COMPILE: --compile-mode=vm
// Yields and variadic import calls, run in-process by our own spec test
// (tools/iree-run-module/tests/opcode_coverage.rs) against the native test
// module `yieldable_test` that the test registers. Upstream's iree-run-module
// cannot run these: it registers no such module, and it spins forever when a
// call really yields. Expected results are in the test.
vm.module @async {
  vm.import private @yieldable_test.yield_n(%arg : i32, %n : i32) -> i32 attributes {vm.yield}
  vm.import private @yieldable_test.yield_variadic_sum(%args : i32 ...) -> i32 attributes {vm.yield}
  vm.import private @yieldable_test.sum(%args : i32 ...) -> i32

  // vm.yield %n times in a loop; returns the number of yields.
  vm.export @yield_loop
  vm.func @yield_loop(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    vm.br ^check(%c0 : i32)
  ^check(%i: i32):
    %more = vm.cmp.lt.i32.s %i, %n : i32
    vm.cond_br %more, ^body, ^done
  ^body:
    %next = vm.add.i32 %i, %c1 : i32
    vm.yield ^check(%next : i32)
  ^done:
    vm.return %i : i32
  }

  // A yieldable import that yields %n times, then returns %arg + %n.
  vm.export @call_yield_n
  vm.func @call_yield_n(%arg: i32, %n: i32) -> i32 {
    vm.call.yieldable @yieldable_test.yield_n(%arg, %n) : (i32, i32) -> ^resume(i32)
  ^resume(%r: i32):
    vm.return %r : i32
  }

  // A non-yielding variadic import.
  vm.export @variadic_sum
  vm.func @variadic_sum(%a: i32, %b: i32, %c: i32) -> i32 {
    %r = vm.call.variadic @yieldable_test.sum([%a, %b, %c]) : (i32 ...) -> i32
    vm.return %r : i32
  }

  // A variadic import that yields once before returning the sum.
  vm.export @variadic_yield_sum
  vm.func @variadic_yield_sum(%a: i32, %b: i32) -> i32 {
    "vm.call.variadic.yieldable"(%a, %b)[^resume] <{callee = @yieldable_test.yield_variadic_sum, segment_sizes = dense<[2]> : vector<1xi16>, segment_types = [i32], result_types = [i32]}> : (i32, i32) -> ()
  ^resume(%r: i32):
    vm.return %r : i32
  }

  // An internal callee that yields, reached through call.yieldable, with a
  // yieldable import inside it: the continuation spans two frames.
  vm.func private @nested(%arg: i32, %n: i32) -> i32 attributes {inlining_policy = #util.inline.never} {
    vm.yield ^next
  ^next:
    vm.call.yieldable @yieldable_test.yield_n(%arg, %n) : (i32, i32) -> ^resume(i32)
  ^resume(%r: i32):
    vm.return %r : i32
  }
  vm.export @call_nested
  vm.func @call_nested(%arg: i32, %n: i32) -> i32 {
    vm.call.yieldable @nested(%arg, %n) : (i32, i32) -> ^resume(i32)
  ^resume(%r: i32):
    vm.return %r : i32
  }
}
