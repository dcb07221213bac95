// COMPILE: --compile-mode=vm --iree-vm-target-extension-f64
// The loops of `../shared/tools/opbench.py`, one function per opcode (the
// same generator, all in one module): `f_<op>(n)` runs n trips of the op
// plus the loop's bookkeeping (two adds, a compare, a branch). Float loops
// return the trip counter, so the compiler deletes the float op and they
// time the bookkeeping alone. `cargo xtask icount` counts the instructions
// of each at 10000 trips against testdata/bench/instruction_counts.txt.
vm.module @opbench {
  vm.export @f_add_i32
  vm.func @f_add_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.add.i32 %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_sub_i32
  vm.func @f_sub_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.sub.i32 %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_mul_i32
  vm.func @f_mul_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.mul.i32 %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_div_i32_s
  vm.func @f_div_i32_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.div.i32.s %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_div_i32_u
  vm.func @f_div_i32_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.div.i32.u %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_rem_i32_s
  vm.func @f_rem_i32_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.rem.i32.s %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_rem_i32_u
  vm.func @f_rem_i32_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.rem.i32.u %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_and_i32
  vm.func @f_and_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.and.i32 %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_or_i32
  vm.func @f_or_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.or.i32 %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_xor_i32
  vm.func @f_xor_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.xor.i32 %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_min_i32_s
  vm.func @f_min_i32_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.min.i32.s %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_max_i32_u
  vm.func @f_max_i32_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.max.i32.u %x, %k : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_fma_i32
  vm.func @f_fma_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %r = vm.fma.i32 %x, %k, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_not_i32
  vm.func @f_not_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.not.i32 %x : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_abs_i32
  vm.func @f_abs_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.abs.i32 %x : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_ctlz_i32
  vm.func @f_ctlz_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.ctlz.i32 %x : i32
    %r = vm.add.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_shl_i32
  vm.func @f_shl_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.shl.i32 %x, %three : i32
    %r = vm.xor.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_shr_i32_s
  vm.func @f_shr_i32_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.shr.i32.s %x, %three : i32
    %r = vm.xor.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_shr_i32_u
  vm.func @f_shr_i32_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %u = vm.shr.i32.u %x, %three : i32
    %r = vm.xor.i32 %u, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_cmp_eq_i32
  vm.func @f_cmp_eq_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %c = vm.cmp.eq.i32 %x, %acc : i32
    %r = vm.select.i32 %c, %x, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_cmp_ne_i32
  vm.func @f_cmp_ne_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %c = vm.cmp.ne.i32 %x, %acc : i32
    %r = vm.select.i32 %c, %x, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_cmp_lt_i32_s
  vm.func @f_cmp_lt_i32_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %c = vm.cmp.lt.i32.s %x, %acc : i32
    %r = vm.select.i32 %c, %x, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_cmp_lt_i32_u
  vm.func @f_cmp_lt_i32_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %c = vm.cmp.lt.i32.u %x, %acc : i32
    %r = vm.select.i32 %c, %x, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_cmp_nz_i32
  vm.func @f_cmp_nz_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i32 3
    %one = vm.const.i32 1
    %x0 = vm.const.i32 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i32, i32)
  ^loop(%i: i32, %x: i32, %acc: i32):
    %c = vm.cmp.nz.i32 %x : i32
    %r = vm.select.i32 %c, %x, %acc : i32
    %nx = vm.add.i32 %x, %one : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i32, i32), ^exit
  ^exit:
    vm.return %r : i32
  }
  vm.export @f_add_i64
  vm.func @f_add_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.add.i64 %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_sub_i64
  vm.func @f_sub_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.sub.i64 %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_mul_i64
  vm.func @f_mul_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.mul.i64 %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_div_i64_s
  vm.func @f_div_i64_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.div.i64.s %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_div_i64_u
  vm.func @f_div_i64_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.div.i64.u %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_rem_i64_s
  vm.func @f_rem_i64_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.rem.i64.s %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_rem_i64_u
  vm.func @f_rem_i64_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.rem.i64.u %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_and_i64
  vm.func @f_and_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.and.i64 %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_or_i64
  vm.func @f_or_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.or.i64 %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_xor_i64
  vm.func @f_xor_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.xor.i64 %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_min_i64_s
  vm.func @f_min_i64_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.min.i64.s %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_max_i64_u
  vm.func @f_max_i64_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.max.i64.u %x, %k : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_fma_i64
  vm.func @f_fma_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %r = vm.fma.i64 %x, %k, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_not_i64
  vm.func @f_not_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.not.i64 %x : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_abs_i64
  vm.func @f_abs_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.abs.i64 %x : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_ctlz_i64
  vm.func @f_ctlz_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.ctlz.i64 %x : i64
    %r = vm.add.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_shl_i64
  vm.func @f_shl_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.shl.i64 %x, %three : i64
    %r = vm.xor.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_shr_i64_s
  vm.func @f_shr_i64_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.shr.i64.s %x, %three : i64
    %r = vm.xor.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_shr_i64_u
  vm.func @f_shr_i64_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %u = vm.shr.i64.u %x, %three : i64
    %r = vm.xor.i64 %u, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_cmp_eq_i64
  vm.func @f_cmp_eq_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %c = vm.cmp.eq.i64 %x, %acc : i64
    %r = vm.select.i64 %c, %x, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_cmp_ne_i64
  vm.func @f_cmp_ne_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %c = vm.cmp.ne.i64 %x, %acc : i64
    %r = vm.select.i64 %c, %x, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_cmp_lt_i64_s
  vm.func @f_cmp_lt_i64_s(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %c = vm.cmp.lt.i64.s %x, %acc : i64
    %r = vm.select.i64 %c, %x, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_cmp_lt_i64_u
  vm.func @f_cmp_lt_i64_u(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %c = vm.cmp.lt.i64.u %x, %acc : i64
    %r = vm.select.i64 %c, %x, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_cmp_nz_i64
  vm.func @f_cmp_nz_i64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.i64 3
    %one = vm.const.i64 1
    %x0 = vm.const.i64 7
    vm.br ^loop(%c0, %x0, %x0 : i32, i64, i64)
  ^loop(%i: i32, %x: i64, %acc: i64):
    %c = vm.cmp.nz.i64 %x : i64
    %r = vm.select.i64 %c, %x, %acc : i64
    %nx = vm.add.i64 %x, %one : i64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, i64, i64), ^exit
  ^exit:
    %t = vm.trunc.i64.i32 %r : i64 -> i32
    vm.return %t : i32
  }
  vm.export @f_add_f32
  vm.func @f_add_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.add.f32 %x, %k : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_sub_f32
  vm.func @f_sub_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.sub.f32 %x, %k : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_mul_f32
  vm.func @f_mul_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.mul.f32 %x, %k : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_div_f32
  vm.func @f_div_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.div.f32 %x, %k : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_rem_f32
  vm.func @f_rem_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.rem.f32 %x, %k : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_fma_f32
  vm.func @f_fma_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %r = vm.fma.f32 %x, %k, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_min_f32
  vm.func @f_min_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.min.f32 %x, %k : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_max_f32
  vm.func @f_max_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.max.f32 %x, %k : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_abs_f32
  vm.func @f_abs_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.abs.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_neg_f32
  vm.func @f_neg_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.neg.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_ceil_f32
  vm.func @f_ceil_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.ceil.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_floor_f32
  vm.func @f_floor_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.floor.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_round_f32
  vm.func @f_round_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.round.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_sqrt_f32
  vm.func @f_sqrt_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.sqrt.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_exp_f32
  vm.func @f_exp_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.exp.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_log_f32
  vm.func @f_log_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.log.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_tanh_f32
  vm.func @f_tanh_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.tanh.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_sin_f32
  vm.func @f_sin_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.sin.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_atan_f32
  vm.func @f_atan_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.atan.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_erf_f32
  vm.func @f_erf_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %u = vm.erf.f32 %x : f32
    %r = vm.add.f32 %u, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_cmp_eq_f32_o
  vm.func @f_cmp_eq_f32_o(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %c = vm.cmp.eq.f32.o %x, %acc : f32
    %r = vm.select.f32 %c, %x, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_cmp_lt_f32_o
  vm.func @f_cmp_lt_f32_o(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %c = vm.cmp.lt.f32.o %x, %acc : f32
    %r = vm.select.f32 %c, %x, %acc : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_cmp_nan_f32
  vm.func @f_cmp_nan_f32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f32 3.0
    %one = vm.const.f32 1.0
    %x0 = vm.const.f32 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f32, f32)
  ^loop(%i: i32, %x: f32, %acc: f32):
    %c = vm.cmp.nan.f32 %x : f32
    %r = vm.select.f32 %c, %k, %x : f32
    %nx = vm.add.f32 %x, %one : f32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f32, f32), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_add_f64
  vm.func @f_add_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.add.f64 %x, %k : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_sub_f64
  vm.func @f_sub_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.sub.f64 %x, %k : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_mul_f64
  vm.func @f_mul_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.mul.f64 %x, %k : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_div_f64
  vm.func @f_div_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.div.f64 %x, %k : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_rem_f64
  vm.func @f_rem_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.rem.f64 %x, %k : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_fma_f64
  vm.func @f_fma_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %r = vm.fma.f64 %x, %k, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_min_f64
  vm.func @f_min_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.min.f64 %x, %k : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_max_f64
  vm.func @f_max_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.max.f64 %x, %k : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_abs_f64
  vm.func @f_abs_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.abs.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_neg_f64
  vm.func @f_neg_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.neg.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_ceil_f64
  vm.func @f_ceil_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.ceil.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_floor_f64
  vm.func @f_floor_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.floor.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_round_f64
  vm.func @f_round_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.round.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_sqrt_f64
  vm.func @f_sqrt_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.sqrt.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_exp_f64
  vm.func @f_exp_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.exp.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_log_f64
  vm.func @f_log_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.log.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_tanh_f64
  vm.func @f_tanh_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.tanh.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_sin_f64
  vm.func @f_sin_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.sin.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_atan_f64
  vm.func @f_atan_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.atan.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_erf_f64
  vm.func @f_erf_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %u = vm.erf.f64 %x : f64
    %r = vm.add.f64 %u, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_cmp_eq_f64_o
  vm.func @f_cmp_eq_f64_o(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %c = vm.cmp.eq.f64.o %x, %acc : f64
    %r = vm.select.f64 %c, %x, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_cmp_lt_f64_o
  vm.func @f_cmp_lt_f64_o(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %c = vm.cmp.lt.f64.o %x, %acc : f64
    %r = vm.select.f64 %c, %x, %acc : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
  vm.export @f_cmp_nan_f64
  vm.func @f_cmp_nan_f64(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %three = vm.const.i32 3
    %k = vm.const.f64 3.0
    %one = vm.const.f64 1.0
    %x0 = vm.const.f64 7.0
    vm.br ^loop(%c0, %x0, %x0 : i32, f64, f64)
  ^loop(%i: i32, %x: f64, %acc: f64):
    %c = vm.cmp.nan.f64 %x : f64
    %r = vm.select.f64 %c, %k, %x : f64
    %nx = vm.add.f64 %x, %one : f64
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %nx, %r : i32, f64, f64), ^exit
  ^exit:
    vm.return %next : i32
  }
}
