// COMPILE: --compile-mode=vm
// Op sequences the interpreter fuses at load time: three-term add chains
// (`r = a + b; r = r + c`, either operand order, i32 and i64, and the sum
// added to itself), and counted loops whose back edge (`add`, then `br` to
// the header's compare-and-branch) becomes one latch op. Each function also
// returns the intermediate values a wrong fusion would change.
vm.module @fused {
  vm.export @add3_i32
  vm.func @add3_i32(%a: i32, %b: i32, %c: i32) -> (i32, i32) {
    %s = vm.add.i32 %a, %b : i32
    %t = vm.add.i32 %s, %c : i32
    %u = vm.add.i32 %c, %t : i32
    %v = vm.add.i32 %u, %u : i32
    vm.return %t, %v : i32, i32
  }

  vm.export @add3_i64
  vm.func @add3_i64(%a: i64, %b: i64, %c: i64) -> (i64, i64) {
    %s = vm.add.i64 %a, %b : i64
    %t = vm.add.i64 %s, %c : i64
    %u = vm.add.i64 %c, %t : i64
    %v = vm.add.i64 %u, %u : i64
    vm.return %t, %v : i64, i64
  }

  // sum over i < n of (i + k + base), with the loop test in a header
  // block (the shape compiled kernels have).
  vm.export @loop_i64
  vm.func @loop_i64(%n: i64, %k: i64, %base: i64) -> (i64, i64) {
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    vm.br ^header(%c0, %c0 : i64, i64)
  ^header(%i: i64, %acc: i64):
    %more = vm.cmp.lt.i64.s %i, %n : i64
    vm.cond_br %more, ^body, ^exit
  ^body:
    %s = vm.add.i64 %i, %k : i64
    %t = vm.add.i64 %s, %base : i64
    %acc2 = vm.add.i64 %acc, %t : i64
    %next = vm.add.i64 %i, %c1 : i64
    vm.br ^header(%next, %acc2 : i64, i64)
  ^exit:
    vm.return %i, %acc : i64, i64
  }

  vm.export @loop_i32
  vm.func @loop_i32(%n: i32, %k: i32) -> (i32, i32) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    vm.br ^header(%c0, %c0 : i32, i32)
  ^header(%i: i32, %acc: i32):
    %more = vm.cmp.lt.i32.s %i, %n : i32
    vm.cond_br %more, ^body, ^exit
  ^body:
    %s = vm.add.i32 %i, %k : i32
    %t = vm.add.i32 %s, %acc : i32
    %next = vm.add.i32 %i, %c1 : i32
    vm.br ^header(%next, %t : i32, i32)
  ^exit:
    vm.return %i, %acc : i32, i32
  }

  // Word loads at an add's sum (`i + base`, and `i + k + base`): the sum
  // of the loaded i32s over i < n, then the last sum. Offsets past the end
  // fail on the load itself, after the add's result is written.
  vm.export @indexed_loads
  vm.func @indexed_loads(%n: i64, %k: i64, %base: i64) -> (i32, i64) {
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %z = vm.const.i32 0
    %len = vm.const.i64 64
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %len, %align : !vm.buffer
    %fill = vm.const.i32 3
    %c16 = vm.const.i64 16
    vm.buffer.fill.i32 %buf, %c0, %c16, %fill : i32 -> !vm.buffer
    vm.br ^header(%c0, %z, %c0 : i64, i32, i64)
  ^header(%i: i64, %acc: i32, %last: i64):
    %more = vm.cmp.lt.i64.s %i, %n : i64
    vm.cond_br %more, ^body, ^exit
  ^body:
    %s = vm.add.i64 %i, %base : i64
    %x = vm.buffer.load.i32 %buf[%s] : !vm.buffer -> i32
    %t = vm.add.i64 %i, %k : i64
    %u = vm.add.i64 %t, %base : i64
    %y = vm.buffer.load.i32 %buf[%u] : !vm.buffer -> i32
    %xy = vm.add.i32 %x, %y : i32
    %acc2 = vm.add.i32 %acc, %xy : i32
    %next = vm.add.i64 %i, %c1 : i64
    vm.br ^header(%next, %acc2, %u : i64, i32, i64)
  ^exit:
    vm.return %acc, %last : i32, i64
  }

  // Loops passing one value around their back edge (one register move on
  // the taken edge: `CondBrMove`, fused with the compare before it when
  // there is one). The moved value lands in the condition's register (the
  // condition is read before the move) or in the compare's result register.
  vm.export @carried_nz
  vm.func @carried_nz(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c3 = vm.const.i32 3
    vm.br ^loop(%n, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %m = vm.mul.i32 %i, %c3 : i32
    %x = vm.xor.i32 %acc, %m : i32
    %next = vm.sub.i32 %i, %c1 : i32
    %more = vm.cmp.nz.i32 %next : i32
    vm.cond_br %more, ^loop(%next, %x : i32, i32), ^exit(%x : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }

  vm.export @carried_lt_i32
  vm.func @carried_lt_i32(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c3 = vm.const.i32 3
    vm.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %odd = vm.and.i32 %i, %c1 : i32
    %nz = vm.cmp.nz.i32 %odd : i32
    vm.cond_br %nz, ^a, ^b
  ^a:
    %p = vm.mul.i32 %i, %c3 : i32
    vm.br ^join(%p : i32)
  ^b:
    %q = vm.add.i32 %i, %c3 : i32
    vm.br ^join(%q : i32)
  ^join(%v: i32):
    %x = vm.xor.i32 %acc, %v : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %x : i32, i32), ^exit(%x : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }

  vm.export @carried_lt_i64
  vm.func @carried_lt_i64(%n: i64) -> i32 {
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %z = vm.const.i32 0
    %c5 = vm.const.i32 5
    vm.br ^loop(%c0, %z : i64, i32)
  ^loop(%i: i64, %acc: i32):
    %t = vm.trunc.i64.i32 %i : i64 -> i32
    %m = vm.mul.i32 %t, %c5 : i32
    %x = vm.xor.i32 %acc, %m : i32
    %next = vm.add.i64 %i, %c1 : i64
    %more = vm.cmp.lt.i64.s %next, %n : i64
    vm.cond_br %more, ^loop(%next, %x : i64, i32), ^exit(%x : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }
}
