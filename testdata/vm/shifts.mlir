// COMPILE: --compile-mode=vm
// Shifts. The amount is always an i32 register; upstream masks it to the
// operand width (amount & 31 for i32, amount & 63 for i64).
vm.module @shifts {
  vm.export @shifts_i32
  vm.func @shifts_i32(%v: i32, %amount: i32) -> (i32, i32, i32) {
    %shl = vm.shl.i32 %v, %amount : i32
    %shrs = vm.shr.i32.s %v, %amount : i32
    %shru = vm.shr.i32.u %v, %amount : i32
    vm.return %shl, %shrs, %shru : i32, i32, i32
  }
  vm.export @shifts_i64
  vm.func @shifts_i64(%v: i64, %amount: i32) -> (i64, i64, i64) {
    %shl = vm.shl.i64 %v, %amount : i64
    %shrs = vm.shr.i64.s %v, %amount : i64
    %shru = vm.shr.i64.u %v, %amount : i64
    vm.return %shl, %shrs, %shru : i64, i64, i64
  }
  // Shift by constant amounts (the compiler keeps the op; the amount is a
  // constant register).
  vm.export @shift_const
  vm.func @shift_const(%v: i32, %w: i64) -> (i32, i32, i64, i64) {
    %c3 = vm.const.i32 3
    %c40 = vm.const.i32 40
    %a = vm.shl.i32 %v, %c3 : i32
    %b = vm.shr.i32.u %v, %c3 : i32
    %c = vm.shl.i64 %w, %c40 : i64
    %d = vm.shr.i64.s %w, %c40 : i64
    vm.return %a, %b, %c, %d : i32, i32, i64, i64
  }
}
