vm.module @rodata_module {
  vm.rodata private @small dense<[1, 2, 3, 4]> : tensor<4xi32>
  vm.rodata private @big dense<7> : tensor<4096xi8>
  vm.export @get_big
  vm.func @get_big() -> !vm.buffer {
    %0 = vm.const.ref.rodata @big : !vm.buffer
    vm.return %0 : !vm.buffer
  }
  vm.export @get_small
  vm.func @get_small() -> !vm.buffer {
    %0 = vm.const.ref.rodata @small : !vm.buffer
    vm.return %0 : !vm.buffer
  }
}
