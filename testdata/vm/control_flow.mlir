// COMPILE: --compile-mode=vm
// br, cond_br and br_table, with block arguments and loops.
vm.module @control_flow {
  // Sum of 1..n with a loop carried in block arguments.
  vm.export @sum_to
  vm.func @sum_to(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    vm.br ^loop(%c1, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %done = vm.cmp.lt.i32.s %n, %i : i32
    vm.cond_br %done, ^exit(%acc : i32), ^body
  ^body:
    %acc2 = vm.add.i32 %acc, %i : i32
    %i2 = vm.add.i32 %i, %c1 : i32
    vm.br ^loop(%i2, %acc2 : i32, i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }

  // Iterative i64 factorial (wraps on overflow).
  vm.export @factorial
  vm.func @factorial(%n: i64) -> i64 {
    %c1 = vm.const.i64 1
    vm.br ^loop(%n, %c1 : i64, i64)
  ^loop(%k: i64, %acc: i64):
    %more = vm.cmp.lt.i64.s %c1, %k : i64
    vm.cond_br %more, ^body, ^exit
  ^body:
    %acc2 = vm.mul.i64 %acc, %k : i64
    %k2 = vm.sub.i64 %k, %c1 : i64
    vm.br ^loop(%k2, %acc2 : i64, i64)
  ^exit:
    vm.return %acc : i64
  }

  // Collatz step count; exercises both cond_br arms with operands.
  vm.export @collatz
  vm.func @collatz(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c3 = vm.const.i32 3
    vm.br ^loop(%n, %c0 : i32, i32)
  ^loop(%x: i32, %steps: i32):
    %is_one = vm.cmp.eq.i32 %x, %c1 : i32
    vm.cond_br %is_one, ^exit(%steps : i32), ^step
  ^step:
    %odd = vm.and.i32 %x, %c1 : i32
    %s2 = vm.add.i32 %steps, %c1 : i32
    vm.cond_br %odd, ^odd(%x, %s2 : i32, i32), ^even(%x, %s2 : i32, i32)
  ^odd(%xo: i32, %so: i32):
    %t = vm.mul.i32 %xo, %c3 : i32
    %t1 = vm.add.i32 %t, %c1 : i32
    vm.br ^loop(%t1, %so : i32, i32)
  ^even(%xe: i32, %se: i32):
    %h = vm.shr.i32.u %xe, %c1 : i32
    vm.br ^loop(%h, %se : i32, i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }

  // Swaps two values n times through block arguments (parallel copy).
  vm.export @swap_n
  vm.func @swap_n(%a: i32, %b: i64, %n: i32) -> (i32, i64) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %a64 = vm.ext.i32.i64.s %a : i32 -> i64
    vm.br ^loop(%a64, %b, %n : i64, i64, i32)
  ^loop(%x: i64, %y: i64, %k: i32):
    %done = vm.cmp.eq.i32 %k, %c0 : i32
    vm.cond_br %done, ^exit(%x, %y : i64, i64), ^next
  ^next:
    %k2 = vm.sub.i32 %k, %c1 : i32
    vm.br ^loop(%y, %x, %k2 : i64, i64, i32)
  ^exit(%rx: i64, %ry: i64):
    %rx32 = vm.trunc.i64.i32 %rx : i64 -> i32
    vm.return %rx32, %ry : i32, i64
  }

  // br_table: index 0..3 pick a block; anything else takes the default.
  vm.export @table
  vm.func @table(%index: i32, %v: i32) -> i32 {
    %c100 = vm.const.i32 100
    %c200 = vm.const.i32 200
    vm.br_table %index {
      default: ^dflt(%v : i32),
      0: ^add(%v, %c100 : i32, i32),
      1: ^add(%v, %c200 : i32, i32),
      2: ^neg(%v : i32),
      3: ^dflt(%c100 : i32)
    }
  ^add(%x: i32, %y: i32):
    %s = vm.add.i32 %x, %y : i32
    vm.return %s : i32
  ^neg(%z: i32):
    %c0 = vm.const.i32 0
    %n = vm.sub.i32 %c0, %z : i32
    vm.return %n : i32
  ^dflt(%w: i32):
    %cm = vm.const.i32 -1
    %m = vm.mul.i32 %w, %cm : i32
    %r = vm.xor.i32 %m, %c100 : i32
    vm.return %r : i32
  }

  // br_table inside a loop: a tiny state machine counting transitions.
  vm.export @state_machine
  vm.func @state_machine(%steps: i32) -> (i32, i32) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    vm.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%state: i32, %n: i32):
    %done = vm.cmp.eq.i32 %n, %steps : i32
    vm.cond_br %done, ^exit(%state, %n : i32, i32), ^dispatch
  ^dispatch:
    %n2 = vm.add.i32 %n, %c1 : i32
    vm.br_table %state {
      default: ^loop(%c0, %n2 : i32, i32),
      0: ^loop(%c1, %n2 : i32, i32),
      1: ^loop(%c2, %n2 : i32, i32)
    }
  ^exit(%s: i32, %k: i32):
    vm.return %s, %k : i32, i32
  }

  // A cond_br whose both targets are the same block with different operands.
  vm.export @same_target
  vm.func @same_target(%c: i32, %a: i32, %b: i32) -> i32 {
    vm.cond_br %c, ^join(%a : i32), ^join(%b : i32)
  ^join(%x: i32):
    vm.return %x : i32
  }
}
