// COMPILE: --compile-mode=vm
// Internal calls: argument/result passing of every register kind. The VM
// pipeline inlines every call it can, so callees are marked
// `inlining_policy = #util.inline.never` to keep the vm.call ops.
// Recursive functions are in calls_recursive.vmasm: iree-compile 3.13 hangs
// forever (in iree-util-verify-initialization-order) on any module with a
// recursive call cycle.
vm.module @calls {
  vm.func private @add3(%a: i32, %b: i32, %c: i32) -> i32 attributes {inlining_policy = #util.inline.never} {
    %t = vm.add.i32 %a, %b : i32
    %r = vm.add.i32 %t, %c : i32
    vm.return %r : i32
  }
  vm.export @call_add3
  vm.func @call_add3(%a: i32, %b: i32, %c: i32) -> i32 attributes {inlining_policy = #util.inline.never} {
    %r = vm.call @add3(%a, %b, %c) : (i32, i32, i32) -> i32
    vm.return %r : i32
  }

  // Several results of mixed kinds, returned in a permuted order.
  vm.func private @divmod(%a: i64, %b: i64) -> (i64, i64, i32) attributes {inlining_policy = #util.inline.never} {
    %q = vm.div.i64.s %a, %b : i64
    %r = vm.rem.i64.s %a, %b : i64
    %neg = vm.cmp.lt.i64.s %a, %b : i64
    vm.return %q, %r, %neg : i64, i64, i32
  }
  vm.export @call_divmod
  vm.func @call_divmod(%a: i64, %b: i64) -> (i32, i64, i64) {
    %q, %r, %f = vm.call @divmod(%a, %b) : (i64, i64) -> (i64, i64, i32)
    vm.return %f, %r, %q : i32, i64, i64
  }

  // Ref arguments and results: returns the longer of two buffers.
  vm.func private @longer(%a: !vm.buffer, %b: !vm.buffer) -> !vm.buffer attributes {inlining_policy = #util.inline.never} {
    %la = vm.buffer.length %a : !vm.buffer -> i64
    %lb = vm.buffer.length %b : !vm.buffer -> i64
    %lt = vm.cmp.lt.i64.s %la, %lb : i64
    %r = vm.select.ref %lt, %b, %a : !vm.buffer
    vm.return %r : !vm.buffer
  }
  vm.export @call_longer
  vm.func @call_longer(%x: i64, %y: i64) -> (i64, i32) {
    %c1 = vm.const.i32 1
    %a = vm.buffer.alloc %x, %c1 : !vm.buffer
    %b = vm.buffer.alloc %y, %c1 : !vm.buffer
    %r = vm.call @longer(%a, %b) : (!vm.buffer, !vm.buffer) -> !vm.buffer
    %l = vm.buffer.length %r : !vm.buffer -> i64
    %is_a = vm.cmp.eq.ref %r, %a : !vm.buffer
    vm.return %l, %is_a : i64, i32
  }

  // Many arguments (more than fit any small fixed frame).
  vm.func private @sum12(%a0: i32, %a1: i64, %a2: i32, %a3: i64, %a4: i32, %a5: i64,
                         %a6: i32, %a7: i64, %a8: i32, %a9: i64, %a10: i32, %a11: i64) -> i64 attributes {inlining_policy = #util.inline.never} {
    %e0 = vm.ext.i32.i64.s %a0 : i32 -> i64
    %e2 = vm.ext.i32.i64.s %a2 : i32 -> i64
    %e4 = vm.ext.i32.i64.s %a4 : i32 -> i64
    %e6 = vm.ext.i32.i64.s %a6 : i32 -> i64
    %e8 = vm.ext.i32.i64.s %a8 : i32 -> i64
    %e10 = vm.ext.i32.i64.s %a10 : i32 -> i64
    %s0 = vm.add.i64 %e0, %a1 : i64
    %s1 = vm.add.i64 %s0, %e2 : i64
    %s2 = vm.add.i64 %s1, %a3 : i64
    %s3 = vm.add.i64 %s2, %e4 : i64
    %s4 = vm.add.i64 %s3, %a5 : i64
    %s5 = vm.add.i64 %s4, %e6 : i64
    %s6 = vm.add.i64 %s5, %a7 : i64
    %s7 = vm.add.i64 %s6, %e8 : i64
    %s8 = vm.add.i64 %s7, %a9 : i64
    %s9 = vm.add.i64 %s8, %e10 : i64
    %s10 = vm.add.i64 %s9, %a11 : i64
    vm.return %s10 : i64
  }
  vm.export @call_sum12
  vm.func @call_sum12(%a: i32, %b: i64) -> i64 {
    %r = vm.call @sum12(%a, %b, %a, %b, %a, %b, %a, %b, %a, %b, %a, %b)
        : (i32, i64, i32, i64, i32, i64, i32, i64, i32, i64, i32, i64) -> i64
    vm.return %r : i64
  }

  // A function with no results, called for its side effect on a buffer.
  vm.func private @poke(%b: !vm.buffer, %v: i32) attributes {inlining_policy = #util.inline.never} {
    %c0 = vm.const.i64 0
    vm.buffer.store.i32 %v, %b[%c0] : i32 -> !vm.buffer
    vm.return
  }
  vm.export @call_void
  vm.func @call_void(%v: i32) -> i32 {
    %c4 = vm.const.i64 4
    %c4a = vm.const.i32 4
    %b = vm.buffer.alloc %c4, %c4a : !vm.buffer
    vm.call @poke(%b, %v) : (!vm.buffer, i32) -> ()
    %c0 = vm.const.i64 0
    %r = vm.buffer.load.i32 %b[%c0] : !vm.buffer -> i32
    vm.return %r : i32
  }

  // A function calling an exported function (exports are callable
  // internally too).
  vm.export @call_export
  vm.func @call_export(%n: i32) -> i32 {
    %s = vm.call @call_add3(%n, %n, %n) : (i32, i32, i32) -> i32
    vm.return %s : i32
  }

  // Zero-argument, zero-result export.
  vm.export @nothing
  vm.func @nothing() {
    vm.return
  }
}
