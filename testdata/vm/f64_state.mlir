// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true --iree-vm-target-extension-f64=true
// EXT_F64 data movement: globals (direct and indirect), constants, list
// get/set, select and switch.
vm.module @f64_state {
  vm.global.f64 private mutable @g_zero : f64
  vm.global.f64 private mutable @g_init = 2.5 : f64
  vm.global.f64 private mutable @g_ind : f64
  vm.global.f64 private mutable @g_ind2 = -1.25 : f64

  // Returns the global's value before and after storing %a into it.
  vm.export @global_swap
  vm.func @global_swap(%a: f64) -> (f64, f64) {
    %old = vm.global.load.f64 @g_init : f64
    vm.global.store.f64 %a, @g_init : f64
    %new = vm.global.load.f64 @g_init : f64
    vm.return %old, %new : f64, f64
  }
  // A zero-initialized global, then one updated by an accumulation.
  vm.export @global_accumulate
  vm.func @global_accumulate(%a: f64, %b: f64) -> (f64, f64) {
    %z = vm.global.load.f64 @g_zero : f64
    %s0 = vm.add.f64 %z, %a : f64
    vm.global.store.f64 %s0, @g_zero : f64
    %v = vm.global.load.f64 @g_zero : f64
    %s1 = vm.add.f64 %v, %b : f64
    vm.global.store.f64 %s1, @g_zero : f64
    %w = vm.global.load.f64 @g_zero : f64
    vm.return %z, %w : f64, f64
  }
  // Indirect access: the byte offset into the module's rwdata comes in as an
  // argument. Layout (see the disassembly): @g_zero at 0, @g_init at 8,
  // @g_ind at 16, @g_ind2 at 24; 32 bytes in all.
  vm.export @global_load_indirect
  vm.func @global_load_indirect(%offset: i32) -> f64 {
    %v = vm.global.load.indirect.f64 %offset : i32 -> f64
    vm.return %v : f64
  }
  vm.export @global_store_indirect
  vm.func @global_store_indirect(%offset: i32, %a: f64) -> (f64, f64, f64, f64) {
    vm.global.store.indirect.f64 %a, %offset : f64 -> i32
    %v0 = vm.global.load.f64 @g_zero : f64
    %v1 = vm.global.load.f64 @g_init : f64
    %v2 = vm.global.load.f64 @g_ind : f64
    %v3 = vm.global.load.f64 @g_ind2 : f64
    vm.return %v0, %v1, %v2, %v3 : f64, f64, f64, f64
  }
  vm.export @global_indirect
  vm.func @global_indirect(%offset: i32, %a: f64) -> (f64, f64, f64, f64) {
    %before = vm.global.load.indirect.f64 %offset : i32 -> f64
    vm.global.store.indirect.f64 %a, %offset : f64 -> i32
    %after = vm.global.load.indirect.f64 %offset : i32 -> f64
    %v0 = vm.global.load.f64 @g_ind : f64
    %v1 = vm.global.load.f64 @g_ind2 : f64
    vm.return %before, %after, %v0, %v1 : f64, f64, f64, f64
  }
  // Keeps @g_ind and @g_ind2 mutable (stored directly somewhere).
  vm.export @global_set
  vm.func @global_set(%a: f64) {
    vm.global.store.f64 %a, @g_ind : f64
    vm.global.store.f64 %a, @g_ind2 : f64
    vm.return
  }

  // Constants.
  vm.export @consts
  vm.func @consts() -> (f64, f64, f64, f64, f64, f64) {
    %zero = vm.const.f64.zero
    %one = vm.const.f64 1.5
    %neg = vm.const.f64 -0.0
    %inf = vm.const.f64 0x7FF0000000000000
    %nan = vm.const.f64 0x7FF8000000000000
    %tiny = vm.const.f64 4.9406564584124654e-324
    vm.return %zero, %one, %neg, %inf, %nan, %tiny : f64, f64, f64, f64, f64, f64
  }
  vm.export @const_add
  vm.func @const_add(%a: f64) -> f64 {
    %c = vm.const.f64 0.1
    %r = vm.add.f64 %a, %c : f64
    vm.return %r : f64
  }
  vm.export @const_bits
  vm.func @const_bits() -> (i64, i64) {
    %c = vm.const.f64 0.1
    %z = vm.const.f64.zero
    %cb = vm.bitcast.f64.i64 %c : f64 -> i64
    %zb = vm.bitcast.f64.i64 %z : f64 -> i64
    vm.return %cb, %zb : i64, i64
  }

  // Lists.
  vm.export @list_roundtrip
  vm.func @list_roundtrip(%a: f64, %b: f64) -> (f64, f64, f64, i32) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %c3 = vm.const.i32 3
    %list = vm.list.alloc %c3 : (i32) -> !vm.list<f64>
    vm.list.resize %list, %c3 : (!vm.list<f64>, i32)
    vm.list.set.f64 %list, %c0, %a : (!vm.list<f64>, i32, f64)
    vm.list.set.f64 %list, %c2, %b : (!vm.list<f64>, i32, f64)
    %v0 = vm.list.get.f64 %list, %c0 : (!vm.list<f64>, i32) -> f64
    %v1 = vm.list.get.f64 %list, %c1 : (!vm.list<f64>, i32) -> f64
    %v2 = vm.list.get.f64 %list, %c2 : (!vm.list<f64>, i32) -> f64
    %n = vm.list.size %list : (!vm.list<f64>) -> i32
    vm.return %v0, %v1, %v2, %n : f64, f64, f64, i32
  }
  // Sets element %i of a 2-element list and reads element %j back.
  vm.export @list_index
  vm.func @list_index(%i: i32, %j: i32, %v: f64) -> f64 {
    %c2 = vm.const.i32 2
    %list = vm.list.alloc %c2 : (i32) -> !vm.list<f64>
    vm.list.resize %list, %c2 : (!vm.list<f64>, i32)
    vm.list.set.f64 %list, %i, %v : (!vm.list<f64>, i32, f64)
    %r = vm.list.get.f64 %list, %j : (!vm.list<f64>, i32) -> f64
    vm.return %r : f64
  }
  // A list of f64 handed back to the caller.
  vm.export @list_result
  vm.func @list_result(%a: f64, %b: f64) -> !vm.list<f64> {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %list = vm.list.alloc %c2 : (i32) -> !vm.list<f64>
    vm.list.resize %list, %c2 : (!vm.list<f64>, i32)
    vm.list.set.f64 %list, %c0, %a : (!vm.list<f64>, i32, f64)
    vm.list.set.f64 %list, %c1, %b : (!vm.list<f64>, i32, f64)
    vm.return %list : !vm.list<f64>
  }
  // An f64 stored into a list of f32 (rounded to f32 on the way in) and into a
  // list of i64 (no float->int conversion: stores 0), read back as f64.
  vm.export @list_cross_type
  vm.func @list_cross_type(%a: f64) -> (f64, f64, i64) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %lf = vm.list.alloc %c1 : (i32) -> !vm.list<f32>
    vm.list.resize %lf, %c1 : (!vm.list<f32>, i32)
    vm.list.set.f64 %lf, %c0, %a : (!vm.list<f32>, i32, f64)
    %r0 = vm.list.get.f64 %lf, %c0 : (!vm.list<f32>, i32) -> f64
    %li = vm.list.alloc %c1 : (i32) -> !vm.list<i64>
    vm.list.resize %li, %c1 : (!vm.list<i64>, i32)
    vm.list.set.f64 %li, %c0, %a : (!vm.list<i64>, i32, f64)
    %r1 = vm.list.get.f64 %li, %c0 : (!vm.list<i64>, i32) -> f64
    %bits = vm.bitcast.f64.i64 %r0 : f64 -> i64
    vm.return %r0, %r1, %bits : f64, f64, i64
  }
  // A variant list: f64 and f32 elements side by side.
  vm.export @list_variant
  vm.func @list_variant(%a: f64, %b: f32) -> (f64, f32, f64, !vm.list<?>) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %list = vm.list.alloc %c2 : (i32) -> !vm.list<?>
    vm.list.resize %list, %c2 : (!vm.list<?>, i32)
    vm.list.set.f64 %list, %c0, %a : (!vm.list<?>, i32, f64)
    vm.list.set.f32 %list, %c1, %b : (!vm.list<?>, i32, f32)
    %x = vm.list.get.f64 %list, %c0 : (!vm.list<?>, i32) -> f64
    %y = vm.list.get.f32 %list, %c1 : (!vm.list<?>, i32) -> f32
    %z = vm.list.get.f64 %list, %c1 : (!vm.list<?>, i32) -> f64
    vm.return %x, %y, %z, %list : f64, f32, f64, !vm.list<?>
  }

  // Select and switch.
  vm.export @select
  vm.func @select(%c: i32, %a: f64, %b: f64) -> f64 {
    %r = vm.select.f64 %c, %a, %b : f64
    vm.return %r : f64
  }
  vm.export @switch
  vm.func @switch(%i: i32, %a: f64, %b: f64, %c: f64, %d: f64) -> f64 {
    %r = vm.switch.f64 %i[%a, %b, %c] else %d : f64
    vm.return %r : f64
  }
}
