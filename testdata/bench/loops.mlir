// COMPILE: --compile-mode=vm
// Interpreter benchmarks: a scalar loop, an internal-call loop and a list
// loop. Each takes its trip count as an argument so nothing folds away.
vm.module @loops {
  vm.export @scalar_loop
  vm.func @scalar_loop(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    vm.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %sq = vm.mul.i32 %i, %i : i32
    %sum = vm.add.i32 %acc, %sq : i32
    %mix = vm.xor.i32 %sum, %i : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %mix : i32, i32), ^exit(%mix : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }

  vm.func private @step(%i: i32, %acc: i32) -> i32 attributes {inlining_policy = #util.inline.never} {
    %sq = vm.mul.i32 %i, %i : i32
    %sum = vm.add.i32 %acc, %sq : i32
    vm.return %sum : i32
  }

  vm.export @call_loop
  vm.func @call_loop(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    vm.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %sum = vm.call @step(%i, %acc) : (i32, i32) -> i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %sum : i32, i32), ^exit(%sum : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }

  vm.export @list_loop
  vm.func @list_loop(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c15 = vm.const.i32 15
    %c16 = vm.const.i32 16
    %list = vm.list.alloc %c16 : (i32) -> !vm.list<i32>
    vm.list.resize %list, %c16 : (!vm.list<i32>, i32)
    vm.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %slot = vm.and.i32 %i, %c15 : i32
    %old = vm.list.get.i32 %list, %slot : (!vm.list<i32>, i32) -> i32
    %new = vm.add.i32 %old, %i : i32
    vm.list.set.i32 %list, %slot, %new : (!vm.list<i32>, i32, i32)
    %sum = vm.add.i32 %acc, %new : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %sum : i32, i32), ^exit(%sum : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }
  // A loop whose back edge passes a block argument the register allocator
  // could not coalesce, so the branch copies a register every trip.
  vm.export @remap_loop
  vm.func @remap_loop(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c3 = vm.const.i32 3
    vm.br ^loop(%n, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %m = vm.mul.i32 %i, %c3 : i32
    %acc2 = vm.xor.i32 %acc, %m : i32
    %next = vm.sub.i32 %i, %c1 : i32
    %more = vm.cmp.ne.i32 %next, %c0 : i32
    vm.cond_br %more, ^loop(%next, %acc2 : i32, i32), ^exit(%acc2 : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }

  // An if/else in the loop body: a data-dependent cond_br and two forward
  // branches to the join every trip.
  vm.export @branch_loop
  vm.func @branch_loop(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c3 = vm.const.i32 3
    vm.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %b = vm.and.i32 %i, %c1 : i32
    %odd = vm.cmp.nz.i32 %b : i32
    vm.cond_br %odd, ^a, ^b
  ^a:
    %x = vm.mul.i32 %i, %c3 : i32
    vm.br ^join(%x : i32)
  ^b:
    %y = vm.add.i32 %i, %c3 : i32
    vm.br ^join(%y : i32)
  ^join(%v: i32):
    %acc2 = vm.xor.i32 %acc, %v : i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %acc2 : i32, i32), ^exit(%acc2 : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }
}
