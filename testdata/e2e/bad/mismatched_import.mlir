// COMPILE: --compile-mode=vm
// Imports check.expect_true with an i64 operand; the check module's
// export takes an i32, so linking fails before any test runs.
vm.module @mismatched_import {
  vm.import private optional @check.expect_true(%operand : i64)
  vm.export @calls_it
  vm.func @calls_it() {
    %c1 = vm.const.i64 1
    vm.call @check.expect_true(%c1) : (i64) -> ()
    vm.return
  }
}
