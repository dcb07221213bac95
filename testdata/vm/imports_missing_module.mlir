// COMPILE: --compile-mode=vm
// A required import from a module named @no_such_module that is never loaded.
vm.module @missing_module {
  vm.import private @no_such_module.fn(%a : i32) -> i32
  vm.export @call
  vm.func @call(%a: i32) -> i32 {
    %r = vm.call @no_such_module.fn(%a) : (i32) -> i32
    vm.return %r : i32
  }
}
