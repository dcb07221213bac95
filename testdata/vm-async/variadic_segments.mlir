// COMPILE: --compile-mode=vm
// Minimal reproducer (issue #31): a variadic call whose callee has a
// non-variadic argument after the variadic one (cconv `0CiDi_i`), encoded
// with segment sizes [2, 1]. Upstream's verifier ignores the segment size of
// a non-variadic argument; ours once rejected the module. Run by
// crates/vm-bytecode/tests/variadic_segments.rs against
// iree_vm::testing::yieldable_test_module.
vm.module @variadic_segments {
  vm.import private @yieldable_test.yield_variadic_sum(%args : i32 ..., %yields : i32) -> i32

  // a + b (no yields).
  vm.export @sum2
  vm.func @sum2(%a: i32, %b: i32) -> i32 {
    %zero = vm.const.i32 0
    %r = vm.call.variadic @yieldable_test.yield_variadic_sum([%a, %b], %zero) : (i32 ..., i32) -> i32
    vm.return %r : i32
  }

  // (a + b) + yields: a yieldable call; the callee adds one per yield.
  vm.export @sum2_yielding
  vm.func @sum2_yielding(%a: i32, %b: i32, %yields: i32) -> i32 {
    "vm.call.variadic.yieldable"(%a, %b, %yields)[^resume] <{callee = @yieldable_test.yield_variadic_sum, segment_sizes = dense<[2, 1]> : vector<2xi16>, segment_types = [i32, i32], result_types = [i32]}> : (i32, i32, i32) -> ()
  ^resume(%r: i32):
    vm.return %r : i32
  }
}
