// COMPILE: --compile-mode=vm
// Failing on purpose: vm.fail with a status code and message, and the
// cond_fail / check pseudo-ops that lower to cmp + cond_br + fail.
// A vm.fail whose status register is 0 is a no-op that falls off the end
// of its block, which kills upstream with SIGSEGV, so no case passes 0; a
// status of 17 (DEFERRED) makes upstream's iree-run-module spin forever.
vm.module @failures {
  vm.export @fail
  vm.func @fail(%code: i32) {
    vm.fail %code, "failure requested by the test"
  }
  // A failure without a message.
  vm.export @fail_no_message
  vm.func @fail_no_message(%code: i32) {
    vm.fail %code
  }
  // Fails only when %x is negative; otherwise returns %x * 2.
  vm.export @fail_if_negative
  vm.func @fail_if_negative(%x: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c2 = vm.const.i32 2
    %neg = vm.cmp.lt.i32.s %x, %c0 : i32
    vm.cond_br %neg, ^fail, ^ok
  ^fail:
    %code = vm.const.i32 11
    vm.fail %code, "negative input"
  ^ok:
    %r = vm.mul.i32 %x, %c2 : i32
    vm.return %r : i32
  }
  // vm.cond_fail (a pseudo-op): fails with %code if %cond is non-zero.
  vm.export @cond_fail
  vm.func @cond_fail(%cond: i32, %code: i32) -> i32 {
    vm.cond_fail %cond, %code, "cond_fail fired"
    %c1 = vm.const.i32 1
    vm.return %c1 : i32
  }
  // vm.check.eq / vm.check.nz (pseudo-ops) fail with FAILED_PRECONDITION.
  vm.export @check_eq
  vm.func @check_eq(%a: i32, %b: i32) -> i32 {
    vm.check.eq %a, %b, "check.eq failed" : i32
    vm.return %a : i32
  }
  vm.export @check_nz
  vm.func @check_nz(%a: i64) -> i64 {
    vm.check.nz %a, "check.nz failed" : i64
    vm.return %a : i64
  }
  // A failure after side effects on a buffer that is also returned.
  vm.export @fail_after_work
  vm.func @fail_after_work(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    vm.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %done = vm.cmp.eq.i32 %i, %n : i32
    vm.cond_br %done, ^boom(%acc : i32), ^body
  ^body:
    %acc2 = vm.add.i32 %acc, %i : i32
    %i2 = vm.add.i32 %i, %c1 : i32
    vm.br ^loop(%i2, %acc2 : i32, i32)
  ^boom(%r: i32):
    %code = vm.const.i32 10
    vm.fail %code, "aborted after the loop"
  }
  // Functions of several signatures, for argument-parsing errors.
  vm.export @takes_i32
  vm.func @takes_i32(%a: i32) -> i32 {
    vm.return %a : i32
  }
  vm.export @takes_i64_i32
  vm.func @takes_i64_i32(%a: i64, %b: i32) -> (i64, i32) {
    vm.return %a, %b : i64, i32
  }
  vm.export @takes_nothing
  vm.func @takes_nothing() -> i32 {
    %c = vm.const.i32 5
    vm.return %c : i32
  }
}
