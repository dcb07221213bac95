// COMPILE: --compile-mode=vm
// A ref of the wrong type where an import wants a typed ref: a buffer view
// passed as !hal.buffer is INVALID_ARGUMENT at the native boundary, as
// upstream's ref type check; passing it through untouched is fine.
vm.module @module {
  vm.import private @hal.buffer.length(%buffer : !vm.ref<!hal.buffer>) -> i64
  vm.func @len(%arg0 : !vm.ref<!hal.buffer>) -> i64 {
    %0 = vm.call @hal.buffer.length(%arg0) : (!vm.ref<!hal.buffer>) -> i64
    vm.return %0 : i64
  }
  vm.export @len
  vm.func @pass(%arg0 : !vm.ref<!hal.buffer>) -> !vm.ref<!hal.buffer> {
    vm.return %arg0 : !vm.ref<!hal.buffer>
  }
  vm.export @pass
}
