// COMPILE: --compile-mode=vm
// Debug ops: vm.trace, vm.print, vm.break. In the release tools they have
// no visible effect (nothing on stdout or stderr) and execution continues.
// vm.cond_break is in debug_asm.vmasm (see debug_cond_break.mlir for why).
vm.module @debug {
  vm.export @trace
  vm.func @trace(%a: i32, %b: i64) -> (i32, i64) {
    vm.trace "trace_event"(%a, %b) : i32, i64
    vm.return %a, %b : i32, i64
  }
  vm.export @print
  vm.func @print(%a: i32, %b: i64) -> (i32, i64) {
    %c1 = vm.const.i32 1
    %len = vm.const.i64 4
    %buf = vm.buffer.alloc %len, %c1 : !vm.buffer
    vm.print "print %d %lld"(%a, %b, %buf) : i32, i64, !vm.buffer
    %n = vm.const.ref.zero : !vm.buffer
    vm.print "null ref"(%n) : !vm.buffer
    vm.return %a, %b : i32, i64
  }
  vm.export @break
  vm.func @break(%a: i32) -> i32 {
    %c1 = vm.const.i32 1
    vm.break ^next
  ^next:
    %b = vm.add.i32 %a, %c1 : i32
    vm.break ^last(%b : i32)
  ^last(%x: i32):
    vm.return %x : i32
  }
}
