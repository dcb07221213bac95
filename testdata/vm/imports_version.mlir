// COMPILE: --compile-mode=vm
// Requires @provider at version 4 or later; the provider is version 3.
vm.module @needs_v4 {
  vm.import private @provider.add(%a : i32, %b : i32) -> i32 attributes {minimum_version = 4 : i32}
  vm.export @add
  vm.func @add(%a: i32, %b: i32) -> i32 {
    %r = vm.call @provider.add(%a, %b) : (i32, i32) -> i32
    vm.return %r : i32
  }
}
