// COMPILE: --compile-mode=vm
// 32-bit integer arithmetic and bitwise ops. Operands come from function
// arguments so the compiler cannot fold them away.
vm.module @arith_i32 {
  // add, sub, mul (wrapping).
  vm.export @add_sub_mul
  vm.func @add_sub_mul(%a: i32, %b: i32) -> (i32, i32, i32) {
    %add = vm.add.i32 %a, %b : i32
    %sub = vm.sub.i32 %a, %b : i32
    %mul = vm.mul.i32 %a, %b : i32
    vm.return %add, %sub, %mul : i32, i32, i32
  }

  // Signed and unsigned division and remainder. Upstream traps (SIGFPE) on a
  // zero divisor and on INT_MIN / -1, so the cases avoid those.
  vm.export @div_rem
  vm.func @div_rem(%a: i32, %b: i32) -> (i32, i32, i32, i32) {
    %ds = vm.div.i32.s %a, %b : i32
    %du = vm.div.i32.u %a, %b : i32
    %rs = vm.rem.i32.s %a, %b : i32
    %ru = vm.rem.i32.u %a, %b : i32
    vm.return %ds, %du, %rs, %ru : i32, i32, i32, i32
  }

  // Fused multiply-add a*b+c (wrapping).
  vm.export @fma
  vm.func @fma(%a: i32, %b: i32, %c: i32) -> i32 {
    %r = vm.fma.i32 %a, %b, %c : i32
    vm.return %r : i32
  }

  // Bitwise binary ops.
  vm.export @bitwise
  vm.func @bitwise(%a: i32, %b: i32) -> (i32, i32, i32) {
    %and = vm.and.i32 %a, %b : i32
    %or = vm.or.i32 %a, %b : i32
    %xor = vm.xor.i32 %a, %b : i32
    vm.return %and, %or, %xor : i32, i32, i32
  }

  // Unary ops: not, abs, count-leading-zeros.
  vm.export @unary
  vm.func @unary(%a: i32) -> (i32, i32, i32) {
    %not = vm.not.i32 %a : i32
    %abs = vm.abs.i32 %a : i32
    %ctlz = vm.ctlz.i32 %a : i32
    vm.return %not, %abs, %ctlz : i32, i32, i32
  }

  // min/max, signed and unsigned.
  vm.export @min_max
  vm.func @min_max(%a: i32, %b: i32) -> (i32, i32, i32, i32) {
    %mins = vm.min.i32.s %a, %b : i32
    %minu = vm.min.i32.u %a, %b : i32
    %maxs = vm.max.i32.s %a, %b : i32
    %maxu = vm.max.i32.u %a, %b : i32
    vm.return %mins, %minu, %maxs, %maxu : i32, i32, i32, i32
  }

  // A small expression mixing constants with arguments: (a + 7) * b - 3.
  vm.export @expr
  vm.func @expr(%a: i32, %b: i32) -> i32 {
    %c7 = vm.const.i32 7
    %c3 = vm.const.i32 3
    %t0 = vm.add.i32 %a, %c7 : i32
    %t1 = vm.mul.i32 %t0, %b : i32
    %t2 = vm.sub.i32 %t1, %c3 : i32
    vm.return %t2 : i32
  }

  // Constants: zero, small, negative, extremes.
  vm.export @constants
  vm.func @constants() -> (i32, i32, i32, i32, i32) {
    %z = vm.const.i32.zero
    %one = vm.const.i32 1
    %neg = vm.const.i32 -42
    %max = vm.const.i32 2147483647
    %min = vm.const.i32 -2147483648
    vm.return %z, %one, %neg, %max, %min : i32, i32, i32, i32, i32
  }
}
