// COMPILE: --compile-mode=vm
// Integer truncation and extension. VM registers are i32/i64: the i8/i16
// forms operate inside an i32 register. trunc.i64.i8/i16 and ext.*.i64 with
// narrow sources are pseudo-ops lowered onto the core opcodes.
vm.module @conversions {
  vm.export @trunc_i32
  vm.func @trunc_i32(%v: i32) -> (i32, i32) {
    %t8 = vm.trunc.i32.i8 %v : i32 -> i32
    %t16 = vm.trunc.i32.i16 %v : i32 -> i32
    vm.return %t8, %t16 : i32, i32
  }
  vm.export @trunc_i64
  vm.func @trunc_i64(%v: i64) -> (i32, i32, i32) {
    %t32 = vm.trunc.i64.i32 %v : i64 -> i32
    %t8 = vm.trunc.i64.i8 %v : i64 -> i32
    %t16 = vm.trunc.i64.i16 %v : i64 -> i32
    vm.return %t32, %t8, %t16 : i32, i32, i32
  }
  vm.export @ext_i32
  vm.func @ext_i32(%v: i32) -> (i32, i32, i32, i32) {
    %s8 = vm.ext.i8.i32.s %v : i32 -> i32
    %u8 = vm.ext.i8.i32.u %v : i32 -> i32
    %s16 = vm.ext.i16.i32.s %v : i32 -> i32
    %u16 = vm.ext.i16.i32.u %v : i32 -> i32
    vm.return %s8, %u8, %s16, %u16 : i32, i32, i32, i32
  }
  vm.export @ext_i64
  vm.func @ext_i64(%v: i32) -> (i64, i64) {
    %s = vm.ext.i32.i64.s %v : i32 -> i64
    %u = vm.ext.i32.i64.u %v : i32 -> i64
    vm.return %s, %u : i64, i64
  }
  vm.export @ext_narrow_i64
  vm.func @ext_narrow_i64(%v: i32) -> (i64, i64, i64, i64) {
    %s8 = vm.ext.i8.i64.s %v : i32 -> i64
    %u8 = vm.ext.i8.i64.u %v : i32 -> i64
    %s16 = vm.ext.i16.i64.s %v : i32 -> i64
    %u16 = vm.ext.i16.i64.u %v : i32 -> i64
    vm.return %s8, %u8, %s16, %u16 : i64, i64, i64, i64
  }
  // trunc then ext: keeps the low bits, re-extended.
  vm.export @round_trip
  vm.func @round_trip(%v: i64) -> (i64, i64) {
    %t = vm.trunc.i64.i32 %v : i64 -> i32
    %s = vm.ext.i32.i64.s %t : i32 -> i64
    %u = vm.ext.i32.i64.u %t : i32 -> i64
    vm.return %s, %u : i64, i64
  }
}
