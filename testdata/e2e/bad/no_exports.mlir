// COMPILE: --compile-mode=vm
// A module with no exported functions: nothing to test.
vm.module @no_exports {
  vm.func private @unused() {
    vm.return
  }
}
