// COMPILE: --compile-mode=vm
// Passes a !vm.buffer where check.expect_eq takes buffer views: that test
// fails with INVALID_ARGUMENT, and the next one still runs.
vm.module @non_tensor_argument {
  vm.import private @check.expect_eq(%device : !vm.ref<?>, %lhs : !vm.ref<?>, %rhs : !vm.ref<?>)
  vm.rodata private @bytes dense<[1, 2, 3, 4]> : tensor<4xi8>
  vm.export @buffer_instead_of_view
  vm.func @buffer_instead_of_view() {
    %b = vm.const.ref.rodata @bytes : !vm.buffer
    %null = vm.const.ref.zero : !vm.ref<?>
    vm.call @check.expect_eq(%null, %b, %b) : (!vm.ref<?>, !vm.buffer, !vm.buffer) -> ()
    vm.return
  }
  vm.export @passes
  vm.func @passes() {
    vm.return
  }
}
