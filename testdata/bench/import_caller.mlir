// COMPILE: --compile-mode=vm
// Import-call benchmark: each iteration calls callee.step across modules.
// Run with --module=import_callee.vmfb --module=import_caller.vmfb.
vm.module @caller {
  vm.import private @callee.step(%i: i32, %acc: i32) -> i32
  vm.export @import_loop
  vm.func @import_loop(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    vm.br ^loop(%c0, %c0 : i32, i32)
  ^loop(%i: i32, %acc: i32):
    %sum = vm.call @callee.step(%i, %acc) : (i32, i32) -> i32
    %next = vm.add.i32 %i, %c1 : i32
    %more = vm.cmp.lt.i32.s %next, %n : i32
    vm.cond_br %more, ^loop(%next, %sum : i32, i32), ^exit(%sum : i32)
  ^exit(%r: i32):
    vm.return %r : i32
  }
}
