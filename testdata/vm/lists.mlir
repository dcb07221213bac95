// COMPILE: --compile-mode=vm
// Typed lists: !vm.list<i32>, !vm.list<i64> and !vm.list<?>.
vm.module @lists {
  // alloc with a capacity, then size/reserve/resize. Returns the sizes seen.
  vm.export @sizes
  vm.func @sizes(%capacity: i32, %reserve: i32, %resize: i32) -> (i32, i32, i32) {
    %l = vm.list.alloc %capacity : (i32) -> !vm.list<i32>
    %s0 = vm.list.size %l : (!vm.list<i32>) -> i32
    vm.list.reserve %l, %reserve : (!vm.list<i32>, i32)
    %s1 = vm.list.size %l : (!vm.list<i32>) -> i32
    vm.list.resize %l, %resize : (!vm.list<i32>, i32)
    %s2 = vm.list.size %l : (!vm.list<i32>) -> i32
    vm.return %s0, %s1, %s2 : i32, i32, i32
  }

  // Fills list[i] = i*i for i < n, then reads element %probe.
  vm.export @squares_i32
  vm.func @squares_i32(%n: i32, %probe: i32) -> (i32, i32) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %l = vm.list.alloc %c0 : (i32) -> !vm.list<i32>
    vm.list.resize %l, %n : (!vm.list<i32>, i32)
    vm.br ^loop(%c0 : i32)
  ^loop(%i: i32):
    %done = vm.cmp.lt.i32.s %i, %n : i32
    vm.cond_br %done, ^body, ^exit
  ^body:
    %sq = vm.mul.i32 %i, %i : i32
    vm.list.set.i32 %l, %i, %sq : (!vm.list<i32>, i32, i32)
    %i2 = vm.add.i32 %i, %c1 : i32
    vm.br ^loop(%i2 : i32)
  ^exit:
    %size = vm.list.size %l : (!vm.list<i32>) -> i32
    %v = vm.list.get.i32 %l, %probe : (!vm.list<i32>, i32) -> i32
    vm.return %size, %v : i32, i32
  }

  // i64 list: set index %i to %v in a list of %n, read back %probe.
  vm.export @set_get_i64
  vm.func @set_get_i64(%n: i32, %i: i32, %v: i64, %probe: i32) -> i64 {
    %l = vm.list.alloc %n : (i32) -> !vm.list<i64>
    vm.list.resize %l, %n : (!vm.list<i64>, i32)
    vm.list.set.i64 %l, %i, %v : (!vm.list<i64>, i32, i64)
    %r = vm.list.get.i64 %l, %probe : (!vm.list<i64>, i32) -> i64
    vm.return %r : i64
  }

  // Shrinking a list drops elements; growing again gives zeros.
  vm.export @shrink_grow
  vm.func @shrink_grow(%v: i32) -> (i32, i32) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c4 = vm.const.i32 4
    %l = vm.list.alloc %c4 : (i32) -> !vm.list<i32>
    vm.list.resize %l, %c4 : (!vm.list<i32>, i32)
    vm.list.set.i32 %l, %c0, %v : (!vm.list<i32>, i32, i32)
    vm.list.set.i32 %l, %c1, %v : (!vm.list<i32>, i32, i32)
    vm.list.resize %l, %c1 : (!vm.list<i32>, i32)
    vm.list.resize %l, %c4 : (!vm.list<i32>, i32)
    %a = vm.list.get.i32 %l, %c0 : (!vm.list<i32>, i32) -> i32
    %b = vm.list.get.i32 %l, %c1 : (!vm.list<i32>, i32) -> i32
    vm.return %a, %b : i32, i32
  }

  // A list of buffers: element %i holds a buffer of length 10*i (or null
  // where %i is %null_at); returns the length at %probe (-1 for null) and
  // whether two gets return the same ref.
  vm.export @buffers
  vm.func @buffers(%n: i32, %null_at: i32, %probe: i32) -> (i64, i32) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c10 = vm.const.i32 10
    %l = vm.list.alloc %n : (i32) -> !vm.list<?>
    vm.list.resize %l, %n : (!vm.list<?>, i32)
    vm.br ^loop(%c0 : i32)
  ^loop(%i: i32):
    %more = vm.cmp.lt.i32.s %i, %n : i32
    vm.cond_br %more, ^body, ^exit
  ^body:
    %is_null = vm.cmp.eq.i32 %i, %null_at : i32
    %i2 = vm.add.i32 %i, %c1 : i32
    vm.cond_br %is_null, ^loop(%i2 : i32), ^alloc
  ^alloc:
    %len32 = vm.mul.i32 %i, %c10 : i32
    %len = vm.ext.i32.i64.s %len32 : i32 -> i64
    %b = vm.buffer.alloc %len, %c1 : !vm.buffer
    vm.list.set.ref %l, %i, %b : (!vm.list<?>, i32, !vm.buffer)
    vm.br ^loop(%i2 : i32)
  ^exit:
    %x = vm.list.get.ref %l, %probe : (!vm.list<?>, i32) -> !vm.buffer
    %y = vm.list.get.ref %l, %probe : (!vm.list<?>, i32) -> !vm.buffer
    %same = vm.cmp.eq.ref %x, %y : !vm.buffer
    %nz = vm.cmp.nz.ref %x : !vm.buffer
    vm.cond_br %nz, ^some, ^none(%same : i32)
  ^some:
    %lx = vm.buffer.length %x : !vm.buffer -> i64
    vm.return %lx, %same : i64, i32
  ^none(%s: i32):
    %m1 = vm.const.i64 -1
    vm.return %m1, %s : i64, i32
  }

  // Lists are returned to iree-run-module, which prints them.
  vm.export @return_i32_list
  vm.func @return_i32_list(%n: i32, %v: i32) -> !vm.list<i32> {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %l = vm.list.alloc %n : (i32) -> !vm.list<i32>
    vm.list.resize %l, %n : (!vm.list<i32>, i32)
    vm.br ^loop(%c0 : i32)
  ^loop(%i: i32):
    %more = vm.cmp.lt.i32.s %i, %n : i32
    vm.cond_br %more, ^body, ^exit
  ^body:
    %x = vm.add.i32 %v, %i : i32
    vm.list.set.i32 %l, %i, %x : (!vm.list<i32>, i32, i32)
    %i2 = vm.add.i32 %i, %c1 : i32
    vm.br ^loop(%i2 : i32)
  ^exit:
    vm.return %l : !vm.list<i32>
  }
  vm.export @return_i64_list
  vm.func @return_i64_list(%a: i64, %b: i64) -> !vm.list<i64> {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %l = vm.list.alloc %c2 : (i32) -> !vm.list<i64>
    vm.list.resize %l, %c2 : (!vm.list<i64>, i32)
    vm.list.set.i64 %l, %c0, %a : (!vm.list<i64>, i32, i64)
    vm.list.set.i64 %l, %c1, %b : (!vm.list<i64>, i32, i64)
    vm.return %l : !vm.list<i64>
  }
  vm.export @return_buffer_list
  vm.func @return_buffer_list() -> !vm.list<?> {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %c8 = vm.const.i64 8
    %l = vm.list.alloc %c2 : (i32) -> !vm.list<?>
    vm.list.resize %l, %c2 : (!vm.list<?>, i32)
    %b = vm.buffer.alloc %c8, %c1 : !vm.buffer
    vm.list.set.ref %l, %c0, %b : (!vm.list<?>, i32, !vm.buffer)
    vm.return %l : !vm.list<?>
  }
  vm.export @return_nested_list
  vm.func @return_nested_list(%v: i32) -> !vm.list<?> {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c2 = vm.const.i32 2
    %outer = vm.list.alloc %c2 : (i32) -> !vm.list<?>
    vm.list.resize %outer, %c2 : (!vm.list<?>, i32)
    %inner = vm.list.alloc %c1 : (i32) -> !vm.list<i32>
    vm.list.resize %inner, %c1 : (!vm.list<i32>, i32)
    vm.list.set.i32 %inner, %c0, %v : (!vm.list<i32>, i32, i32)
    vm.list.set.ref %outer, %c1, %inner : (!vm.list<?>, i32, !vm.list<i32>)
    vm.return %outer : !vm.list<?>
  }
  vm.export @return_empty_list
  vm.func @return_empty_list() -> !vm.list<i32> {
    %c0 = vm.const.i32 0
    %l = vm.list.alloc %c0 : (i32) -> !vm.list<i32>
    vm.return %l : !vm.list<i32>
  }

  // Narrow element types: stored truncated, read back extended.
  vm.export @narrow
  vm.func @narrow(%v: i32) -> (i32, i32) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %l8 = vm.list.alloc %c1 : (i32) -> !vm.list<i8>
    vm.list.resize %l8, %c1 : (!vm.list<i8>, i32)
    vm.list.set.i32 %l8, %c0, %v : (!vm.list<i8>, i32, i32)
    %a = vm.list.get.i32 %l8, %c0 : (!vm.list<i8>, i32) -> i32
    %l16 = vm.list.alloc %c1 : (i32) -> !vm.list<i16>
    vm.list.resize %l16, %c1 : (!vm.list<i16>, i32)
    vm.list.set.i32 %l16, %c0, %v : (!vm.list<i16>, i32, i32)
    %b = vm.list.get.i32 %l16, %c0 : (!vm.list<i16>, i32) -> i32
    vm.return %a, %b : i32, i32
  }
  vm.export @return_i8_list
  vm.func @return_i8_list(%v: i32) -> !vm.list<i8> {
    %c0 = vm.const.i32 0
    %c2 = vm.const.i32 2
    %l = vm.list.alloc %c2 : (i32) -> !vm.list<i8>
    vm.list.resize %l, %c2 : (!vm.list<i8>, i32)
    vm.list.set.i32 %l, %c0, %v : (!vm.list<i8>, i32, i32)
    vm.return %l : !vm.list<i8>
  }
  // Reading an i64 list with get.i32 and an i32 list with get.i64.
  vm.export @cross_width
  vm.func @cross_width(%v: i64) -> (i32, i64) {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %l64 = vm.list.alloc %c1 : (i32) -> !vm.list<i64>
    vm.list.resize %l64, %c1 : (!vm.list<i64>, i32)
    vm.list.set.i64 %l64, %c0, %v : (!vm.list<i64>, i32, i64)
    %a = vm.list.get.i32 %l64, %c0 : (!vm.list<i64>, i32) -> i32
    %l32 = vm.list.alloc %c1 : (i32) -> !vm.list<i32>
    vm.list.resize %l32, %c1 : (!vm.list<i32>, i32)
    %t = vm.trunc.i64.i32 %v : i64 -> i32
    vm.list.set.i32 %l32, %c0, %t : (!vm.list<i32>, i32, i32)
    %b = vm.list.get.i64 %l32, %c0 : (!vm.list<i32>, i32) -> i64
    vm.return %a, %b : i32, i64
  }

  // Out-of-range access on a list of size %n.
  vm.export @get_i32_at
  vm.func @get_i32_at(%n: i32, %i: i32) -> i32 {
    %l = vm.list.alloc %n : (i32) -> !vm.list<i32>
    vm.list.resize %l, %n : (!vm.list<i32>, i32)
    %v = vm.list.get.i32 %l, %i : (!vm.list<i32>, i32) -> i32
    vm.return %v : i32
  }
  vm.export @set_i32_at
  vm.func @set_i32_at(%n: i32, %i: i32) -> i32 {
    %c5 = vm.const.i32 5
    %l = vm.list.alloc %n : (i32) -> !vm.list<i32>
    vm.list.resize %l, %n : (!vm.list<i32>, i32)
    vm.list.set.i32 %l, %i, %c5 : (!vm.list<i32>, i32, i32)
    %s = vm.list.size %l : (!vm.list<i32>) -> i32
    vm.return %s : i32
  }
  vm.export @get_ref_at
  vm.func @get_ref_at(%n: i32, %i: i32) -> i32 {
    %l = vm.list.alloc %n : (i32) -> !vm.list<?>
    vm.list.resize %l, %n : (!vm.list<?>, i32)
    %v = vm.list.get.ref %l, %i : (!vm.list<?>, i32) -> !vm.buffer
    %nz = vm.cmp.nz.ref %v : !vm.buffer
    vm.return %nz : i32
  }
  vm.export @set_ref_at
  vm.func @set_ref_at(%n: i32, %i: i32) -> i32 {
    %c1 = vm.const.i32 1
    %c8 = vm.const.i64 8
    %b = vm.buffer.alloc %c8, %c1 : !vm.buffer
    %l = vm.list.alloc %n : (i32) -> !vm.list<?>
    vm.list.resize %l, %n : (!vm.list<?>, i32)
    vm.list.set.ref %l, %i, %b : (!vm.list<?>, i32, !vm.buffer)
    %s = vm.list.size %l : (!vm.list<?>) -> i32
    vm.return %s : i32
  }

  // Operations on a null list.
  vm.export @null_size
  vm.func @null_size() -> i32 {
    %n = vm.const.ref.zero : !vm.list<i32>
    %s = vm.list.size %n : (!vm.list<i32>) -> i32
    vm.return %s : i32
  }
}
