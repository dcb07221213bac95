// COMPILE: --compile-mode=vm
// A module whose exports other modules import (see imports_consumer.mlir and
// the other imports_* modules). It has version 3 (set through the generic
// op form: the custom vm.module syntax cannot carry a version) and keeps
// state in a global.
"vm.module"() <{sym_name = "provider", version = 3 : i32}> ({
  vm.global.i32 private mutable @calls = 0 : i32

  vm.export @add
  vm.func @add(%a: i32, %b: i32) -> i32 {
    %r = vm.add.i32 %a, %b : i32
    vm.return %r : i32
  }
  vm.export @scale
  vm.func @scale(%a: i64, %k: i32) -> (i64, i32) {
    %k64 = vm.ext.i32.i64.s %k : i32 -> i64
    %r = vm.mul.i64 %a, %k64 : i64
    %neg = vm.cmp.lt.i64.s %r, %a : i64
    vm.return %r, %neg : i64, i32
  }
  vm.export @make_buffer
  vm.func @make_buffer(%len: i64, %fill: i32) -> !vm.buffer {
    %c1 = vm.const.i32 1
    %c0 = vm.const.i64 0
    %b = vm.buffer.alloc %len, %c1 : !vm.buffer
    vm.buffer.fill.i8 %b, %c0, %len, %fill : i32 -> !vm.buffer
    vm.return %b : !vm.buffer
  }
  vm.export @length
  vm.func @length(%b: !vm.buffer) -> i64 {
    %l = vm.buffer.length %b : !vm.buffer -> i64
    vm.return %l : i64
  }
  // Counts its calls in module state that lives as long as the context.
  vm.export @bump
  vm.func @bump() -> i32 {
    %c1 = vm.const.i32 1
    %v = vm.global.load.i32 @calls : i32
    %n = vm.add.i32 %v, %c1 : i32
    vm.global.store.i32 %n, @calls : i32
    vm.return %n : i32
  }
  vm.export @fail_with
  vm.func @fail_with(%code: i32) {
    vm.fail %code, "provider failed"
  }
  vm.export @nothing
  vm.func @nothing() {
    vm.return
  }
  vm.module_terminator
}) : () -> ()
