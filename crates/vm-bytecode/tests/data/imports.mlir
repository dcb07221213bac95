vm.module @imports_module <{version = 3 : i32}> {
  vm.import private @dep.required_fn(%x: i32) -> i32 attributes {minimum_version = 4 : i32}
  vm.import private optional @opt.maybe_fn(%x: i32) -> i32
  vm.global.i32 private mutable @counter : i32
  vm.global.ref private mutable @buf : !vm.buffer
  vm.rodata private @blob dense<[5, 6, 7, 8]> : tensor<4xi8>
  vm.export @scale
  vm.func @scale(%x: f32, %y: i32) -> (f32, i32) attributes {iree.reflection = {note = "hello"}} {
    %c = vm.mul.f32 %x, %x : f32
    %g = vm.global.load.i32 @counter : i32
    %d = vm.call @dep.required_fn(%g) : (i32) -> i32
    %e = vm.call @opt.maybe_fn(%d) : (i32) -> i32
    %b = vm.const.ref.rodata @blob : !vm.buffer
    vm.global.store.ref %b, @buf : !vm.buffer
    vm.return %c, %e : f32, i32
  }
}
