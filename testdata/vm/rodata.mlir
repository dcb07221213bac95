// COMPILE: --compile-mode=vm
// Read-only data: vm.rodata / vm.rodata.inline referenced with
// vm.const.ref.rodata. Rodata buffers are read-only views of the module.
vm.module @rodata {
  vm.rodata private @words dense<[1, -2, 305419896, 2147483647]> : tensor<4xi32>
  vm.rodata private @bytes dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]> : tensor<17xi8>
  vm.rodata private @text "hello, rodata"
  vm.rodata private @longs dense<[81985529216486895, -1]> : tensor<2xi64>
  vm.rodata private @empty dense<> : tensor<0xi8>

  vm.export @lengths
  vm.func @lengths() -> (i64, i64, i64, i64, i64) {
    %a = vm.const.ref.rodata @words : !vm.buffer
    %b = vm.const.ref.rodata @bytes : !vm.buffer
    %c = vm.const.ref.rodata @text : !vm.buffer
    %d = vm.const.ref.rodata @longs : !vm.buffer
    %e = vm.const.ref.rodata @empty : !vm.buffer
    %la = vm.buffer.length %a : !vm.buffer -> i64
    %lb = vm.buffer.length %b : !vm.buffer -> i64
    %lc = vm.buffer.length %c : !vm.buffer -> i64
    %ld = vm.buffer.length %d : !vm.buffer -> i64
    %le = vm.buffer.length %e : !vm.buffer -> i64
    vm.return %la, %lb, %lc, %ld, %le : i64, i64, i64, i64, i64
  }

  vm.export @word
  vm.func @word(%i: i64) -> i32 {
    %a = vm.const.ref.rodata @words : !vm.buffer
    %v = vm.buffer.load.i32 %a[%i] : !vm.buffer -> i32
    vm.return %v : i32
  }
  vm.export @byte
  vm.func @byte(%i: i64) -> (i32, i32) {
    %a = vm.const.ref.rodata @bytes : !vm.buffer
    %u = vm.buffer.load.i8.u %a[%i] : !vm.buffer -> i32
    %s = vm.buffer.load.i16.s %a[%i] : !vm.buffer -> i32
    vm.return %u, %s : i32, i32
  }
  vm.export @long
  vm.func @long(%i: i64) -> i64 {
    %a = vm.const.ref.rodata @longs : !vm.buffer
    %v = vm.buffer.load.i64 %a[%i] : !vm.buffer -> i64
    vm.return %v : i64
  }
  vm.export @text_char
  vm.func @text_char(%i: i64) -> i32 {
    %a = vm.const.ref.rodata @text : !vm.buffer
    %v = vm.buffer.load.i8.u %a[%i] : !vm.buffer -> i32
    vm.return %v : i32
  }
  vm.export @hash_text
  vm.func @hash_text() -> i64 {
    %a = vm.const.ref.rodata @text : !vm.buffer
    %c0 = vm.const.i64 0
    %l = vm.buffer.length %a : !vm.buffer -> i64
    %h = vm.buffer.hash %a, %c0, %l : !vm.buffer -> i64
    vm.return %h : i64
  }
  // The same rodata referenced twice is the same buffer.
  vm.export @identity
  vm.func @identity() -> (i32, i32) {
    %a = vm.const.ref.rodata @words : !vm.buffer
    %b = vm.const.ref.rodata @words : !vm.buffer
    %c = vm.const.ref.rodata @longs : !vm.buffer
    %ab = vm.cmp.eq.ref %a, %b : !vm.buffer
    %ac = vm.cmp.eq.ref %a, %c : !vm.buffer
    vm.return %ab, %ac : i32, i32
  }
  // Writing into rodata.
  vm.export @store_into_rodata
  vm.func @store_into_rodata(%v: i32) -> i32 {
    %a = vm.const.ref.rodata @words : !vm.buffer
    %c0 = vm.const.i64 0
    vm.buffer.store.i32 %v, %a[%c0] : i32 -> !vm.buffer
    %r = vm.buffer.load.i32 %a[%c0] : !vm.buffer -> i32
    vm.return %r : i32
  }
  vm.export @fill_rodata
  vm.func @fill_rodata() {
    %a = vm.const.ref.rodata @bytes : !vm.buffer
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c7 = vm.const.i32 7
    vm.buffer.fill.i8 %a, %c0, %c1, %c7 : i32 -> !vm.buffer
    vm.return
  }
  vm.export @copy_into_rodata
  vm.func @copy_into_rodata() {
    %a = vm.const.ref.rodata @bytes : !vm.buffer
    %b = vm.const.ref.rodata @words : !vm.buffer
    %c0 = vm.const.i64 0
    %c4 = vm.const.i64 4
    vm.buffer.copy %a, %c0, %b, %c0, %c4 : !vm.buffer -> !vm.buffer
    vm.return
  }
  // Cloning rodata gives a writable copy.
  vm.export @clone_and_write
  vm.func @clone_and_write(%v: i32) -> (i32, i32) {
    %a = vm.const.ref.rodata @words : !vm.buffer
    %c0 = vm.const.i64 0
    %c16 = vm.const.i64 16
    %c4 = vm.const.i32 4
    %b = vm.buffer.clone %a, %c0, %c16, %c4 : !vm.buffer -> !vm.buffer
    vm.buffer.store.i32 %v, %b[%c0] : i32 -> !vm.buffer
    %x = vm.buffer.load.i32 %b[%c0] : !vm.buffer -> i32
    %y = vm.buffer.load.i32 %a[%c0] : !vm.buffer -> i32
    vm.return %x, %y : i32, i32
  }
  // Compare rodata with a buffer built at runtime.
  vm.export @compare_with_built
  vm.func @compare_with_built(%w0: i32) -> i32 {
    %a = vm.const.ref.rodata @words : !vm.buffer
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c2 = vm.const.i64 2
    %c3 = vm.const.i64 3
    %c16 = vm.const.i64 16
    %c4 = vm.const.i32 4
    %b = vm.buffer.alloc %c16, %c4 : !vm.buffer
    %v1 = vm.const.i32 -2
    %v2 = vm.const.i32 305419896
    %v3 = vm.const.i32 2147483647
    vm.buffer.store.i32 %w0, %b[%c0] : i32 -> !vm.buffer
    vm.buffer.store.i32 %v1, %b[%c1] : i32 -> !vm.buffer
    vm.buffer.store.i32 %v2, %b[%c2] : i32 -> !vm.buffer
    vm.buffer.store.i32 %v3, %b[%c3] : i32 -> !vm.buffer
    %eq = vm.buffer.compare %a, %c0, %b, %c0, %c16 : !vm.buffer, !vm.buffer
    vm.return %eq : i32
  }
  // Returning a rodata buffer.
  vm.export @return_rodata
  vm.func @return_rodata() -> !vm.buffer {
    %a = vm.const.ref.rodata @text : !vm.buffer
    vm.return %a : !vm.buffer
  }
}
