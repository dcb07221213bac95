vm.module @three {
  vm.export @a
  vm.func @a(%x: i32) -> i32 {
    %c = vm.add.i32 %x, %x : i32
    vm.return %c : i32
  }
  vm.export @b
  vm.func @b(%x: i32) -> i32 {
    %c = vm.mul.i32 %x, %x : i32
    vm.return %c : i32
  }
  vm.func private @c(%x: i32) -> i32 {
    %c = vm.sub.i32 %x, %x : i32
    vm.return %c : i32
  }
  vm.export @d
  vm.func @d(%x: i32) -> i32 {
    %c = vm.call @c(%x) : (i32) -> i32
    vm.return %c : i32
  }
}
