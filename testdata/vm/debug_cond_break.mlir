// COMPILE: --compile-mode=vm
// vm.cond_break as encoded by iree-compile 3.13: the encoder emits only the
// branch (no condition register), while the 3.13 runtime decodes a
// condition first, so the bytecode verifier rejects the module when it
// loads (OUT_OF_RANGE; bytecode data overrun ...).
vm.module @debug_cond_break {
  vm.export @cond_break
  vm.func @cond_break(%c: i32, %a: i32) -> i32 {
    vm.cond_break %c, ^next
  ^next:
    vm.return %a : i32
  }
}
