vm.module @add_module {
  vm.export @add
  vm.func @add(%a: i32, %b: i32) -> i32 {
    %c = vm.add.i32 %a, %b : i32
    vm.return %c : i32
  }
}
