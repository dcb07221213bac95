// COMPILE: --compile-mode=vm
// Variant lists (!vm.list<?>): each element carries its own type (i32, i64,
// ref, or empty). Covers mixed contents, type conversions on get, and
// type-mismatched ref gets.
vm.module @list_variant {
  // Builds [i32 %a, i64 %b, buffer(len %c), null, <empty>] and returns it.
  vm.func private @build(%a: i32, %b: i64, %c: i64) -> !vm.list<?> {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %c3 = vm.const.i32 3
    %c5 = vm.const.i32 5
    %l = vm.list.alloc %c5 : (i32) -> !vm.list<?>
    vm.list.resize %l, %c5 : (!vm.list<?>, i32)
    vm.list.set.i32 %l, %c0, %a : (!vm.list<?>, i32, i32)
    vm.list.set.i64 %l, %c1, %b : (!vm.list<?>, i32, i64)
    %buf = vm.buffer.alloc %c, %c1 : !vm.buffer
    vm.list.set.ref %l, %c2, %buf : (!vm.list<?>, i32, !vm.buffer)
    %null = vm.const.ref.zero : !vm.buffer
    vm.list.set.ref %l, %c3, %null : (!vm.list<?>, i32, !vm.buffer)
    vm.return %l : !vm.list<?>
  }

  vm.export @mixed
  vm.func @mixed(%a: i32, %b: i64, %c: i64) -> !vm.list<?> {
    %l = vm.call @build(%a, %b, %c) : (i32, i64, i64) -> !vm.list<?>
    vm.return %l : !vm.list<?>
  }

  // Reads element %i as i32 / as i64 / as a buffer.
  vm.export @get_i32
  vm.func @get_i32(%i: i32) -> i32 {
    %c7 = vm.const.i32 7
    %b = vm.const.i64 -9000000000
    %c4 = vm.const.i64 4
    %l = vm.call @build(%c7, %b, %c4) : (i32, i64, i64) -> !vm.list<?>
    %v = vm.list.get.i32 %l, %i : (!vm.list<?>, i32) -> i32
    vm.return %v : i32
  }
  vm.export @get_i64
  vm.func @get_i64(%i: i32) -> i64 {
    %c7 = vm.const.i32 -7
    %b = vm.const.i64 -9000000000
    %c4 = vm.const.i64 4
    %l = vm.call @build(%c7, %b, %c4) : (i32, i64, i64) -> !vm.list<?>
    %v = vm.list.get.i64 %l, %i : (!vm.list<?>, i32) -> i64
    vm.return %v : i64
  }
  vm.export @get_buffer
  vm.func @get_buffer(%i: i32) -> (i32, i64) {
    %c7 = vm.const.i32 7
    %b = vm.const.i64 -9000000000
    %c4 = vm.const.i64 4
    %l = vm.call @build(%c7, %b, %c4) : (i32, i64, i64) -> !vm.list<?>
    %v = vm.list.get.ref %l, %i : (!vm.list<?>, i32) -> !vm.buffer
    %nz = vm.cmp.nz.ref %v : !vm.buffer
    vm.cond_br %nz, ^some, ^none(%nz : i32)
  ^some:
    %len = vm.buffer.length %v : !vm.buffer -> i64
    vm.return %nz, %len : i32, i64
  ^none(%z: i32):
    %m1 = vm.const.i64 -1
    vm.return %z, %m1 : i32, i64
  }
  // Gets a buffer element as the wrong ref type (a list).
  vm.export @get_wrong_ref_type
  vm.func @get_wrong_ref_type(%i: i32) -> i32 {
    %c7 = vm.const.i32 7
    %b = vm.const.i64 1
    %c4 = vm.const.i64 4
    %l = vm.call @build(%c7, %b, %c4) : (i32, i64, i64) -> !vm.list<?>
    %v = vm.list.get.ref %l, %i : (!vm.list<?>, i32) -> !vm.list<i32>
    %nz = vm.cmp.nz.ref %v : !vm.list<i32>
    vm.return %nz : i32
  }
  // Gets an element as an untyped ref (!vm.ref<?>).
  vm.export @get_any_ref
  vm.func @get_any_ref(%i: i32) -> i32 {
    %c7 = vm.const.i32 7
    %b = vm.const.i64 1
    %c4 = vm.const.i64 4
    %l = vm.call @build(%c7, %b, %c4) : (i32, i64, i64) -> !vm.list<?>
    %v = vm.list.get.ref %l, %i : (!vm.list<?>, i32) -> !vm.ref<?>
    %nz = vm.cmp.nz.ref %v : !vm.ref<?>
    vm.return %nz : i32
  }

  // Overwrites an element with a different type, then returns the list.
  vm.export @retype
  vm.func @retype(%i: i32, %v: i32) -> !vm.list<?> {
    %c7 = vm.const.i32 7
    %b = vm.const.i64 8
    %c4 = vm.const.i64 4
    %l = vm.call @build(%c7, %b, %c4) : (i32, i64, i64) -> !vm.list<?>
    vm.list.set.i32 %l, %i, %v : (!vm.list<?>, i32, i32)
    vm.return %l : !vm.list<?>
  }

  // A list stored into itself (a reference cycle) is fine to build and drop.
  vm.export @self_reference
  vm.func @self_reference() -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %l = vm.list.alloc %c1 : (i32) -> !vm.list<?>
    vm.list.resize %l, %c1 : (!vm.list<?>, i32)
    vm.list.set.ref %l, %c0, %l : (!vm.list<?>, i32, !vm.list<?>)
    %x = vm.list.get.ref %l, %c0 : (!vm.list<?>, i32) -> !vm.list<?>
    %same = vm.cmp.eq.ref %x, %l : !vm.list<?>
    vm.list.resize %l, %c0 : (!vm.list<?>, i32)
    vm.return %same : i32
  }

  // Nested variant lists returned for printing: [[%a], [], i64 %b].
  vm.export @nested
  vm.func @nested(%a: i32, %b: i64) -> !vm.list<?> {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %c3 = vm.const.i32 3
    %outer = vm.list.alloc %c3 : (i32) -> !vm.list<?>
    vm.list.resize %outer, %c3 : (!vm.list<?>, i32)
    %in0 = vm.list.alloc %c1 : (i32) -> !vm.list<?>
    vm.list.resize %in0, %c1 : (!vm.list<?>, i32)
    vm.list.set.i32 %in0, %c0, %a : (!vm.list<?>, i32, i32)
    %in1 = vm.list.alloc %c0 : (i32) -> !vm.list<i64>
    vm.list.set.ref %outer, %c0, %in0 : (!vm.list<?>, i32, !vm.list<?>)
    vm.list.set.ref %outer, %c1, %in1 : (!vm.list<?>, i32, !vm.list<i64>)
    vm.list.set.i64 %outer, %c2, %b : (!vm.list<?>, i32, i64)
    vm.return %outer : !vm.list<?>
  }
}
