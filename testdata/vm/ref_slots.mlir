// COMPILE: --compile-mode=vm
// Ref ops whose `type_of` operand types the slot a ref lands in: select.ref,
// switch.ref, cast.any.ref and global.store.ref, each on !vm.buffer (type
// table: i32, i64, !vm.buffer). crates/vm-bytecode/tests/ref_types.rs
// patches their type ordinals to check upstream's "source ref type
// mismatch".
vm.module @ref_slots {
  vm.global.ref private mutable @g : !vm.buffer

  vm.export @select
  vm.func @select(%c: i32) -> i32 {
    %c4 = vm.const.i64 4
    %c8 = vm.const.i64 8
    %c16 = vm.const.i32 16
    %a = vm.buffer.alloc %c4, %c16 : !vm.buffer
    %b = vm.buffer.alloc %c8, %c16 : !vm.buffer
    %r = vm.select.ref %c, %a, %b : !vm.buffer
    %len = vm.buffer.length %r : !vm.buffer -> i64
    %l32 = vm.trunc.i64.i32 %len : i64 -> i32
    vm.return %l32 : i32
  }

  vm.export @switch
  vm.func @switch(%i: i32) -> i32 {
    %c4 = vm.const.i64 4
    %c8 = vm.const.i64 8
    %c12 = vm.const.i64 12
    %c16 = vm.const.i32 16
    %a = vm.buffer.alloc %c4, %c16 : !vm.buffer
    %b = vm.buffer.alloc %c8, %c16 : !vm.buffer
    %d = vm.buffer.alloc %c12, %c16 : !vm.buffer
    %r = vm.switch.ref %i[%a, %b] else %d : !vm.buffer
    %len = vm.buffer.length %r : !vm.buffer -> i64
    %l32 = vm.trunc.i64.i32 %len : i64 -> i32
    vm.return %l32 : i32
  }

  vm.export @store
  vm.func @store() -> i32 {
    %c4 = vm.const.i64 4
    %c16 = vm.const.i32 16
    %a = vm.buffer.alloc %c4, %c16 : !vm.buffer
    vm.global.store.ref %a, @g : !vm.buffer
    %r = vm.global.load.ref @g : !vm.buffer
    %len = vm.buffer.length %r : !vm.buffer -> i64
    %l32 = vm.trunc.i64.i32 %len : i64 -> i32
    vm.return %l32 : i32
  }

  // Puts a second ref type (!vm.list<i32>) in the type table.
  vm.export @list_capacity
  vm.func @list_capacity() -> i32 {
    %c3 = vm.const.i32 3
    %l = vm.list.alloc %c3 : (i32) -> !vm.list<i32>
    vm.list.resize %l, %c3 : (!vm.list<i32>, i32)
    %n = vm.list.size %l : (!vm.list<i32>) -> i32
    vm.return %n : i32
  }
}
