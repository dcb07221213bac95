// COMPILE: --compile-mode=vm
// Not a VMVX kernel: its export has the cconv 0i_i (for tests/vmvx.rs).
vm.module @bad_cconv {
  vm.export @not_a_kernel
  vm.func @not_a_kernel(%a: i32) -> i32 {
    vm.return %a : i32
  }
}
