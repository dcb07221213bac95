// COMPILE: --compile-mode=vm
// A kernel importing vmvx.fill.2d.x32 with the wrong signature (for tests/vmvx.rs).
vm.module @bad_import {
  vm.import private @vmvx.fill.2d.x32(%value : i32, %out : !vm.buffer, %offset : i64, %stride : i64, %size0 : i64)
  vm.export @fill
  vm.func @fill(%local: !vm.buffer, %constants: !vm.buffer, %bindings: !vm.list<!vm.buffer>,
               %x: i32, %y: i32, %z: i32, %sx: i32, %sy: i32, %sz: i32,
               %cx: i32, %cy: i32, %cz: i32) attributes {iree.reflection = {binding_count = "1"}} {
    %c0 = vm.const.i32 0
    %k0 = vm.const.i64 0
    %k1 = vm.const.i64 1
    %out = vm.list.get.ref %bindings, %c0 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    vm.call @vmvx.fill.2d.x32(%x, %out, %k0, %k1, %k1) : (i32, !vm.buffer, i64, i64, i64) -> ()
    vm.return
  }
}
