// COMPILE: --compile-mode=vm
// 64-bit integer arithmetic and bitwise ops. Operands come from function
// arguments so the compiler cannot fold them away.
vm.module @arith_i64 {
  // add, sub, mul (wrapping).
  vm.export @add_sub_mul
  vm.func @add_sub_mul(%a: i64, %b: i64) -> (i64, i64, i64) {
    %add = vm.add.i64 %a, %b : i64
    %sub = vm.sub.i64 %a, %b : i64
    %mul = vm.mul.i64 %a, %b : i64
    vm.return %add, %sub, %mul : i64, i64, i64
  }

  // Signed and unsigned division and remainder. Upstream traps (SIGFPE) on a
  // zero divisor and on INT_MIN / -1, so the cases avoid those.
  vm.export @div_rem
  vm.func @div_rem(%a: i64, %b: i64) -> (i64, i64, i64, i64) {
    %ds = vm.div.i64.s %a, %b : i64
    %du = vm.div.i64.u %a, %b : i64
    %rs = vm.rem.i64.s %a, %b : i64
    %ru = vm.rem.i64.u %a, %b : i64
    vm.return %ds, %du, %rs, %ru : i64, i64, i64, i64
  }

  // Fused multiply-add a*b+c (wrapping).
  vm.export @fma
  vm.func @fma(%a: i64, %b: i64, %c: i64) -> i64 {
    %r = vm.fma.i64 %a, %b, %c : i64
    vm.return %r : i64
  }

  // Bitwise binary ops.
  vm.export @bitwise
  vm.func @bitwise(%a: i64, %b: i64) -> (i64, i64, i64) {
    %and = vm.and.i64 %a, %b : i64
    %or = vm.or.i64 %a, %b : i64
    %xor = vm.xor.i64 %a, %b : i64
    vm.return %and, %or, %xor : i64, i64, i64
  }

  // Unary ops: not, abs, count-leading-zeros.
  vm.export @unary
  vm.func @unary(%a: i64) -> (i64, i64, i64) {
    %not = vm.not.i64 %a : i64
    %abs = vm.abs.i64 %a : i64
    %ctlz = vm.ctlz.i64 %a : i64
    vm.return %not, %abs, %ctlz : i64, i64, i64
  }

  // min/max, signed and unsigned.
  vm.export @min_max
  vm.func @min_max(%a: i64, %b: i64) -> (i64, i64, i64, i64) {
    %mins = vm.min.i64.s %a, %b : i64
    %minu = vm.min.i64.u %a, %b : i64
    %maxs = vm.max.i64.s %a, %b : i64
    %maxu = vm.max.i64.u %a, %b : i64
    vm.return %mins, %minu, %maxs, %maxu : i64, i64, i64, i64
  }

  // A small expression mixing constants with arguments: (a + 7) * b - 3.
  vm.export @expr
  vm.func @expr(%a: i64, %b: i64) -> i64 {
    %c7 = vm.const.i64 7
    %c3 = vm.const.i64 3
    %t0 = vm.add.i64 %a, %c7 : i64
    %t1 = vm.mul.i64 %t0, %b : i64
    %t2 = vm.sub.i64 %t1, %c3 : i64
    vm.return %t2 : i64
  }

  // Constants: zero, small, negative, extremes.
  vm.export @constants
  vm.func @constants() -> (i64, i64, i64, i64, i64) {
    %z = vm.const.i64.zero
    %one = vm.const.i64 1
    %neg = vm.const.i64 -42
    %max = vm.const.i64 9223372036854775807
    %min = vm.const.i64 -9223372036854775808
    vm.return %z, %one, %neg, %max, %min : i64, i64, i64, i64, i64
  }
}
