// COMPILE: --compile-mode=vm
// A required import the provider does not export, and (in a second module
// below) a required import from a module that is never loaded.
vm.module @missing_function {
  vm.import private @provider.no_such_function(%a : i32) -> i32
  vm.export @call
  vm.func @call(%a: i32) -> i32 {
    %r = vm.call @provider.no_such_function(%a) : (i32) -> i32
    vm.return %r : i32
  }
  vm.export @unrelated
  vm.func @unrelated(%a: i32) -> i32 {
    vm.return %a : i32
  }
}
