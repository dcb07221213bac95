// COMPILE: --compile-mode=vm
// !vm.buffer ops: alloc, clone, length, copy, compare, fill, load, store, hash.
// Offsets and lengths of load/store/fill are in elements of the access width;
// copy/compare/clone/hash work in bytes.
vm.module @buffers {
  // alloc + length; alignment is an argument.
  vm.export @alloc_length
  vm.func @alloc_length(%len: i64, %align: i32) -> i64 {
    %b = vm.buffer.alloc %len, %align : !vm.buffer
    %l = vm.buffer.length %b : !vm.buffer -> i64
    vm.return %l : i64
  }

  // A fresh buffer is zero-filled; return its hash and one load.
  vm.export @alloc_zeroed
  vm.func @alloc_zeroed(%len: i64) -> (i32, i64) {
    %c16 = vm.const.i32 16
    %b = vm.buffer.alloc %len, %c16 : !vm.buffer
    %c0 = vm.const.i64 0
    %v = vm.buffer.load.i8.u %b[%c0] : !vm.buffer -> i32
    %h = vm.buffer.hash %b, %c0, %len : !vm.buffer -> i64
    vm.return %v, %h : i32, i64
  }

  // Stores a 32-bit value at element %i32_index (in a 16-byte buffer) and reads
  // back all widths at byte/element positions derived from the arguments.
  vm.export @store_i32_load_all
  vm.func @store_i32_load_all(%value: i32, %index: i64, %probe: i64) -> (i32, i32, i32, i32, i32, i64) {
    %len = vm.const.i64 16
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %len, %c8 : !vm.buffer
    vm.buffer.store.i32 %value, %b[%index] : i32 -> !vm.buffer
    %u8 = vm.buffer.load.i8.u %b[%probe] : !vm.buffer -> i32
    %s8 = vm.buffer.load.i8.s %b[%probe] : !vm.buffer -> i32
    %u16 = vm.buffer.load.i16.u %b[%probe] : !vm.buffer -> i32
    %s16 = vm.buffer.load.i16.s %b[%probe] : !vm.buffer -> i32
    %w32 = vm.buffer.load.i32 %b[%probe] : !vm.buffer -> i32
    %w64 = vm.buffer.load.i64 %b[%probe] : !vm.buffer -> i64
    vm.return %u8, %s8, %u16, %s16, %w32, %w64 : i32, i32, i32, i32, i32, i64
  }

  // Store narrow widths (truncating) and read them back.
  vm.export @store_narrow
  vm.func @store_narrow(%value: i32, %index: i64) -> (i32, i32, i32, i32) {
    %len = vm.const.i64 16
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %len, %c8 : !vm.buffer
    %c0 = vm.const.i64 0
    vm.buffer.store.i8 %value, %b[%index] : i32 -> !vm.buffer
    %a = vm.buffer.load.i8.u %b[%index] : !vm.buffer -> i32
    %s = vm.buffer.load.i8.s %b[%index] : !vm.buffer -> i32
    vm.buffer.store.i16 %value, %b[%index] : i32 -> !vm.buffer
    %c = vm.buffer.load.i16.u %b[%index] : !vm.buffer -> i32
    %d = vm.buffer.load.i16.s %b[%index] : !vm.buffer -> i32
    vm.return %a, %s, %c, %d : i32, i32, i32, i32
  }

  // 64-bit store/load round trip plus the two 32-bit halves (little-endian).
  vm.export @store_i64
  vm.func @store_i64(%value: i64, %index: i64) -> (i64, i32, i32) {
    %len = vm.const.i64 32
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %len, %c8 : !vm.buffer
    vm.buffer.store.i64 %value, %b[%index] : i64 -> !vm.buffer
    %v = vm.buffer.load.i64 %b[%index] : !vm.buffer -> i64
    %c2 = vm.const.i64 2
    %lo_i = vm.mul.i64 %index, %c2 : i64
    %c1 = vm.const.i64 1
    %hi_i = vm.add.i64 %lo_i, %c1 : i64
    %lo = vm.buffer.load.i32 %b[%lo_i] : !vm.buffer -> i32
    %hi = vm.buffer.load.i32 %b[%hi_i] : !vm.buffer -> i32
    vm.return %v, %lo, %hi : i64, i32, i32
  }

  // Fill each width over [offset, offset+length) elements of a 32-byte buffer
  // and return the hash of the whole buffer plus two probe bytes.
  vm.export @fill_i8
  vm.func @fill_i8(%offset: i64, %length: i64, %value: i32) -> (i64, i32, i32) {
    %len = vm.const.i64 32
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %len, %c8 : !vm.buffer
    vm.buffer.fill.i8 %b, %offset, %length, %value : i32 -> !vm.buffer
    %c0 = vm.const.i64 0
    %h = vm.buffer.hash %b, %c0, %len : !vm.buffer -> i64
    %first = vm.buffer.load.i8.u %b[%offset] : !vm.buffer -> i32
    %c31 = vm.const.i64 31
    %last = vm.buffer.load.i8.u %b[%c31] : !vm.buffer -> i32
    vm.return %h, %first, %last : i64, i32, i32
  }
  vm.export @fill_i16
  vm.func @fill_i16(%offset: i64, %length: i64, %value: i32) -> (i64, i32, i32) {
    %len = vm.const.i64 32
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %len, %c8 : !vm.buffer
    vm.buffer.fill.i16 %b, %offset, %length, %value : i32 -> !vm.buffer
    %c0 = vm.const.i64 0
    %h = vm.buffer.hash %b, %c0, %len : !vm.buffer -> i64
    %first = vm.buffer.load.i16.u %b[%offset] : !vm.buffer -> i32
    %c15 = vm.const.i64 15
    %last = vm.buffer.load.i16.u %b[%c15] : !vm.buffer -> i32
    vm.return %h, %first, %last : i64, i32, i32
  }
  vm.export @fill_i32
  vm.func @fill_i32(%offset: i64, %length: i64, %value: i32) -> (i64, i32, i32) {
    %len = vm.const.i64 32
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %len, %c8 : !vm.buffer
    vm.buffer.fill.i32 %b, %offset, %length, %value : i32 -> !vm.buffer
    %c0 = vm.const.i64 0
    %h = vm.buffer.hash %b, %c0, %len : !vm.buffer -> i64
    %first = vm.buffer.load.i32 %b[%offset] : !vm.buffer -> i32
    %c7 = vm.const.i64 7
    %last = vm.buffer.load.i32 %b[%c7] : !vm.buffer -> i32
    vm.return %h, %first, %last : i64, i32, i32
  }
  vm.export @fill_i64
  vm.func @fill_i64(%offset: i64, %length: i64, %value: i64) -> (i64, i64, i64) {
    %len = vm.const.i64 32
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %len, %c8 : !vm.buffer
    vm.buffer.fill.i64 %b, %offset, %length, %value : i64 -> !vm.buffer
    %c0 = vm.const.i64 0
    %h = vm.buffer.hash %b, %c0, %len : !vm.buffer -> i64
    %first = vm.buffer.load.i64 %b[%offset] : !vm.buffer -> i64
    %c3 = vm.const.i64 3
    %last = vm.buffer.load.i64 %b[%c3] : !vm.buffer -> i64
    vm.return %h, %first, %last : i64, i64, i64
  }

  // Fills a 16-byte source with a byte pattern 0..15, copies a byte range into a
  // zeroed 16-byte target and returns target bytes and a compare.
  vm.func private @iota16() -> !vm.buffer {
    %len = vm.const.i64 16
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %len, %c8 : !vm.buffer
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c16 = vm.const.i64 16
    vm.br ^loop(%c0 : i64)
  ^loop(%i: i64):
    %v = vm.trunc.i64.i32 %i : i64 -> i32
    vm.buffer.store.i8 %v, %b[%i] : i32 -> !vm.buffer
    %n = vm.add.i64 %i, %c1 : i64
    %more = vm.cmp.lt.i64.s %n, %c16 : i64
    vm.cond_br %more, ^loop(%n : i64), ^done
  ^done:
    vm.return %b : !vm.buffer
  }

  vm.export @copy
  vm.func @copy(%src_off: i64, %dst_off: i64, %length: i64) -> (i32, i32, i32, i64) {
    %src = vm.call @iota16() : () -> !vm.buffer
    %len = vm.const.i64 16
    %c8 = vm.const.i32 8
    %dst = vm.buffer.alloc %len, %c8 : !vm.buffer
    vm.buffer.copy %src, %src_off, %dst, %dst_off, %length : !vm.buffer -> !vm.buffer
    %c0 = vm.const.i64 0
    %c15 = vm.const.i64 15
    %b0 = vm.buffer.load.i8.u %dst[%c0] : !vm.buffer -> i32
    %bd = vm.buffer.load.i8.u %dst[%dst_off] : !vm.buffer -> i32
    %b15 = vm.buffer.load.i8.u %dst[%c15] : !vm.buffer -> i32
    %h = vm.buffer.hash %dst, %c0, %len : !vm.buffer -> i64
    vm.return %b0, %bd, %b15, %h : i32, i32, i32, i64
  }

  // Copy within one buffer (overlapping ranges).
  vm.export @copy_overlap
  vm.func @copy_overlap(%src_off: i64, %dst_off: i64, %length: i64) -> (i32, i32, i32, i32) {
    %b = vm.call @iota16() : () -> !vm.buffer
    vm.buffer.copy %b, %src_off, %b, %dst_off, %length : !vm.buffer -> !vm.buffer
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c2 = vm.const.i64 2
    %c3 = vm.const.i64 3
    %w0 = vm.buffer.load.i32 %b[%c0] : !vm.buffer -> i32
    %w1 = vm.buffer.load.i32 %b[%c1] : !vm.buffer -> i32
    %w2 = vm.buffer.load.i32 %b[%c2] : !vm.buffer -> i32
    %w3 = vm.buffer.load.i32 %b[%c3] : !vm.buffer -> i32
    vm.return %w0, %w1, %w2, %w3 : i32, i32, i32, i32
  }

  // Compares [lhs_off, +length) of iota16 with [rhs_off, +length) of a copy
  // whose byte %poke was changed to 0xFF.
  vm.export @compare
  vm.func @compare(%lhs_off: i64, %rhs_off: i64, %length: i64, %poke: i64) -> i32 {
    %a = vm.call @iota16() : () -> !vm.buffer
    %c0 = vm.const.i64 0
    %c16 = vm.const.i64 16
    %c4 = vm.const.i32 4
    %b = vm.buffer.clone %a, %c0, %c16, %c4 : !vm.buffer -> !vm.buffer
    %ff = vm.const.i32 255
    vm.buffer.store.i8 %ff, %b[%poke] : i32 -> !vm.buffer
    %eq = vm.buffer.compare %a, %lhs_off, %b, %rhs_off, %length : !vm.buffer, !vm.buffer
    vm.return %eq : i32
  }

  // Clone a byte range: the clone's length, first byte, and independence from
  // the source (a store to the source after cloning is not visible).
  vm.export @clone
  vm.func @clone(%offset: i64, %length: i64, %align: i32) -> (i64, i32, i32) {
    %a = vm.call @iota16() : () -> !vm.buffer
    %b = vm.buffer.clone %a, %offset, %length, %align : !vm.buffer -> !vm.buffer
    %l = vm.buffer.length %b : !vm.buffer -> i64
    %c0 = vm.const.i64 0
    %first = vm.buffer.load.i8.u %b[%c0] : !vm.buffer -> i32
    %c99 = vm.const.i32 99
    vm.buffer.store.i8 %c99, %a[%offset] : i32 -> !vm.buffer
    %again = vm.buffer.load.i8.u %b[%c0] : !vm.buffer -> i32
    vm.return %l, %first, %again : i64, i32, i32
  }

  // Hash of a byte range of iota16.
  vm.export @hash
  vm.func @hash(%offset: i64, %length: i64) -> i64 {
    %a = vm.call @iota16() : () -> !vm.buffer
    %h = vm.buffer.hash %a, %offset, %length : !vm.buffer -> i64
    vm.return %h : i64
  }

  // Raw loads/stores at arbitrary element indices of a 16-byte buffer, for
  // bounds checks.
  vm.export @load_i8_at
  vm.func @load_i8_at(%i: i64) -> i32 {
    %a = vm.call @iota16() : () -> !vm.buffer
    %v = vm.buffer.load.i8.s %a[%i] : !vm.buffer -> i32
    vm.return %v : i32
  }
  vm.export @load_i16_at
  vm.func @load_i16_at(%i: i64) -> i32 {
    %a = vm.call @iota16() : () -> !vm.buffer
    %v = vm.buffer.load.i16.u %a[%i] : !vm.buffer -> i32
    vm.return %v : i32
  }
  vm.export @load_i32_at
  vm.func @load_i32_at(%i: i64) -> i32 {
    %a = vm.call @iota16() : () -> !vm.buffer
    %v = vm.buffer.load.i32 %a[%i] : !vm.buffer -> i32
    vm.return %v : i32
  }
  vm.export @load_i64_at
  vm.func @load_i64_at(%i: i64) -> i64 {
    %a = vm.call @iota16() : () -> !vm.buffer
    %v = vm.buffer.load.i64 %a[%i] : !vm.buffer -> i64
    vm.return %v : i64
  }
  vm.export @store_i32_at
  vm.func @store_i32_at(%i: i64, %v: i32) -> i64 {
    %a = vm.call @iota16() : () -> !vm.buffer
    vm.buffer.store.i32 %v, %a[%i] : i32 -> !vm.buffer
    %c0 = vm.const.i64 0
    %c16 = vm.const.i64 16
    %h = vm.buffer.hash %a, %c0, %c16 : !vm.buffer -> i64
    vm.return %h : i64
  }
  vm.export @store_i64_at
  vm.func @store_i64_at(%i: i64, %v: i64) -> i64 {
    %a = vm.call @iota16() : () -> !vm.buffer
    vm.buffer.store.i64 %v, %a[%i] : i64 -> !vm.buffer
    %c0 = vm.const.i64 0
    %c16 = vm.const.i64 16
    %h = vm.buffer.hash %a, %c0, %c16 : !vm.buffer -> i64
    vm.return %h : i64
  }

  // Returning a buffer: iree-run-module has no printer for vm.buffer.
  vm.export @return_buffer
  vm.func @return_buffer(%len: i64) -> !vm.buffer {
    %c16 = vm.const.i32 16
    %b = vm.buffer.alloc %len, %c16 : !vm.buffer
    vm.return %b : !vm.buffer
  }

  // Operations on a null buffer.
  vm.export @null_length
  vm.func @null_length() -> i64 {
    %n = vm.const.ref.zero : !vm.buffer
    %l = vm.buffer.length %n : !vm.buffer -> i64
    vm.return %l : i64
  }
  vm.export @null_load
  vm.func @null_load(%i: i64) -> i32 {
    %n = vm.const.ref.zero : !vm.buffer
    %v = vm.buffer.load.i32 %n[%i] : !vm.buffer -> i32
    vm.return %v : i32
  }
}
