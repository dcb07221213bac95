// COMPILE: --compile-mode=vm
// Calls vmvx.add.2d.f32 with the operand shapes taken from the constants,
// so tests can hand the microkernel any arguments:
// constants = [lhs_offset, rhs_offset, out_offset, stride0, stride1, size0, size1].
vm.module @imports {
  vm.import private @vmvx.add.2d.f32(%lhs : !vm.buffer, %lhs_offset : i64, %lhs_stride0 : i64, %lhs_stride1 : i64, %rhs : !vm.buffer, %rhs_offset : i64, %rhs_stride0 : i64, %rhs_stride1 : i64, %out : !vm.buffer, %out_offset : i64, %out_stride0 : i64, %out_stride1 : i64, %size0 : i64, %size1 : i64)
  vm.export @add
  vm.func @add(%local: !vm.buffer, %constants: !vm.buffer, %bindings: !vm.list<!vm.buffer>,
               %x: i32, %y: i32, %z: i32, %sx: i32, %sy: i32, %sz: i32,
               %cx: i32, %cy: i32, %cz: i32) attributes {iree.reflection = {binding_count = "3", constant_count = "7"}} {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %k0 = vm.const.i64 0
    %k1 = vm.const.i64 1
    %k2 = vm.const.i64 2
    %k3 = vm.const.i64 3
    %k4 = vm.const.i64 4
    %k5 = vm.const.i64 5
    %k6 = vm.const.i64 6
    %lhs = vm.list.get.ref %bindings, %c0 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    %rhs = vm.list.get.ref %bindings, %c1 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    %out = vm.list.get.ref %bindings, %c2 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    %a = vm.buffer.load.i32 %constants[%k0] : !vm.buffer -> i32
    %b = vm.buffer.load.i32 %constants[%k1] : !vm.buffer -> i32
    %c = vm.buffer.load.i32 %constants[%k2] : !vm.buffer -> i32
    %s0 = vm.buffer.load.i32 %constants[%k3] : !vm.buffer -> i32
    %s1 = vm.buffer.load.i32 %constants[%k4] : !vm.buffer -> i32
    %n0 = vm.buffer.load.i32 %constants[%k5] : !vm.buffer -> i32
    %n1 = vm.buffer.load.i32 %constants[%k6] : !vm.buffer -> i32
    %a64 = vm.ext.i32.i64.s %a : i32 -> i64
    %b64 = vm.ext.i32.i64.s %b : i32 -> i64
    %c64 = vm.ext.i32.i64.s %c : i32 -> i64
    %s064 = vm.ext.i32.i64.s %s0 : i32 -> i64
    %s164 = vm.ext.i32.i64.s %s1 : i32 -> i64
    %n064 = vm.ext.i32.i64.s %n0 : i32 -> i64
    %n164 = vm.ext.i32.i64.s %n1 : i32 -> i64
    vm.call @vmvx.add.2d.f32(%lhs, %a64, %s064, %s164, %rhs, %b64, %s064, %s164, %out, %c64, %s064, %s164, %n064, %n164) : (!vm.buffer, i64, i64, i64, !vm.buffer, i64, i64, i64, !vm.buffer, i64, i64, i64, i64, i64) -> ()
    vm.return
  }
}
