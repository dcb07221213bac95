// COMPILE: --compile-mode=vm
// The callee side of the import-call benchmark (see import_caller.mlir).
vm.module @callee {
  vm.export @step
  vm.func @step(%i: i32, %acc: i32) -> i32 {
    %sq = vm.mul.i32 %i, %i : i32
    %sum = vm.add.i32 %acc, %sq : i32
    vm.return %sum : i32
  }
}
