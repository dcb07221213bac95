// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true
// EXT_F32 data movement: globals (direct; indirect ones are in f32_indirect),
// constants, list get/set, select and switch.
vm.module @f32_state {
  vm.global.f32 private mutable @g_zero : f32
  vm.global.f32 private mutable @g_init = 2.5 : f32

  // Returns the global's value before and after storing %a into it.
  vm.export @global_swap
  vm.func @global_swap(%a: f32) -> (f32, f32) {
    %old = vm.global.load.f32 @g_init : f32
    vm.global.store.f32 %a, @g_init : f32
    %new = vm.global.load.f32 @g_init : f32
    vm.return %old, %new : f32, f32
  }
  // A zero-initialized global, then one updated by an accumulation.
  vm.export @global_accumulate
  vm.func @global_accumulate(%a: f32, %b: f32) -> (f32, f32) {
    %z = vm.global.load.f32 @g_zero : f32
    %s0 = vm.add.f32 %z, %a : f32
    vm.global.store.f32 %s0, @g_zero : f32
    %v = vm.global.load.f32 @g_zero : f32
    %s1 = vm.add.f32 %v, %b : f32
    vm.global.store.f32 %s1, @g_zero : f32
    %w = vm.global.load.f32 @g_zero : f32
    vm.return %z, %w : f32, f32
  }
  // Constants.
  vm.export @consts
  vm.func @consts() -> (f32, f32, f32, f32, f32, f32) {
    %zero = vm.const.f32.zero
    %one = vm.const.f32 1.5
    %neg = vm.const.f32 -0.0
    %inf = vm.const.f32 0x7F800000
    %nan = vm.const.f32 0x7FC00000
    %tiny = vm.const.f32 1.0e-45
    vm.return %zero, %one, %neg, %inf, %nan, %tiny : f32, f32, f32, f32, f32, f32
  }
  vm.export @const_add
  vm.func @const_add(%a: f32) -> f32 {
    %c = vm.const.f32 0.125
    %r = vm.add.f32 %a, %c : f32
    vm.return %r : f32
  }

  // Lists.
  vm.export @list_roundtrip
  vm.func @list_roundtrip(%a: f32, %b: f32) -> (f32, f32, f32, i32) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %c3 = vm.const.i32 3
    %list = vm.list.alloc %c3 : (i32) -> !vm.list<f32>
    vm.list.resize %list, %c3 : (!vm.list<f32>, i32)
    vm.list.set.f32 %list, %c0, %a : (!vm.list<f32>, i32, f32)
    vm.list.set.f32 %list, %c2, %b : (!vm.list<f32>, i32, f32)
    %v0 = vm.list.get.f32 %list, %c0 : (!vm.list<f32>, i32) -> f32
    %v1 = vm.list.get.f32 %list, %c1 : (!vm.list<f32>, i32) -> f32
    %v2 = vm.list.get.f32 %list, %c2 : (!vm.list<f32>, i32) -> f32
    %n = vm.list.size %list : (!vm.list<f32>) -> i32
    vm.return %v0, %v1, %v2, %n : f32, f32, f32, i32
  }
  // Sets element %i of a 2-element list and reads element %j back.
  vm.export @list_index
  vm.func @list_index(%i: i32, %j: i32, %v: f32) -> f32 {
    %c2 = vm.const.i32 2
    %list = vm.list.alloc %c2 : (i32) -> !vm.list<f32>
    vm.list.resize %list, %c2 : (!vm.list<f32>, i32)
    vm.list.set.f32 %list, %i, %v : (!vm.list<f32>, i32, f32)
    %r = vm.list.get.f32 %list, %j : (!vm.list<f32>, i32) -> f32
    vm.return %r : f32
  }
  // A list of f32 handed back to the caller.
  vm.export @list_result
  vm.func @list_result(%a: f32, %b: f32) -> !vm.list<f32> {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %list = vm.list.alloc %c2 : (i32) -> !vm.list<f32>
    vm.list.resize %list, %c2 : (!vm.list<f32>, i32)
    vm.list.set.f32 %list, %c0, %a : (!vm.list<f32>, i32, f32)
    vm.list.set.f32 %list, %c1, %b : (!vm.list<f32>, i32, f32)
    vm.return %list : !vm.list<f32>
  }
  // f32 stored into a list of i32 and read back as f32.
  vm.export @list_i32_as_f32
  vm.func @list_i32_as_f32(%a: f32) -> f32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %list = vm.list.alloc %c1 : (i32) -> !vm.list<i32>
    vm.list.resize %list, %c1 : (!vm.list<i32>, i32)
    vm.list.set.f32 %list, %c0, %a : (!vm.list<i32>, i32, f32)
    %r = vm.list.get.f32 %list, %c0 : (!vm.list<i32>, i32) -> f32
    vm.return %r : f32
  }

  // A variant list (!vm.list<?>): the element keeps its f32 type; reading it
  // back as another type goes through the list's value conversion.
  vm.export @list_variant
  vm.func @list_variant(%a: f32) -> (f32, i32, !vm.list<?>) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %list = vm.list.alloc %c1 : (i32) -> !vm.list<?>
    vm.list.resize %list, %c1 : (!vm.list<?>, i32)
    vm.list.set.f32 %list, %c0, %a : (!vm.list<?>, i32, f32)
    %f = vm.list.get.f32 %list, %c0 : (!vm.list<?>, i32) -> f32
    %i = vm.list.get.i32 %list, %c0 : (!vm.list<?>, i32) -> i32
    vm.return %f, %i, %list : f32, i32, !vm.list<?>
  }

  // Select and switch.
  vm.export @select
  vm.func @select(%c: i32, %a: f32, %b: f32) -> f32 {
    %r = vm.select.f32 %c, %a, %b : f32
    vm.return %r : f32
  }
  vm.export @switch
  vm.func @switch(%i: i32, %a: f32, %b: f32, %c: f32, %d: f32) -> f32 {
    %r = vm.switch.f32 %i[%a, %b, %c] else %d : f32
    vm.return %r : f32
  }
}
