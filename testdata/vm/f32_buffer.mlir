// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true
// EXT_F32 buffer ops: buffer.load.f32, buffer.store.f32, buffer.fill.f32.
// Offsets and lengths are in f32 elements (i64); the runtime checks
// (offset + length) * 4 <= buffer byte length.
vm.module @f32_buffer {
  vm.rodata private @data dense<[1.5, -2.0, 3.25, 0x7FC00001]> : tensor<4xf32>

  // Stores %a at element 0 and %b at element 3 of a fresh 16-byte buffer and
  // reads elements 0..3 back (1 and 2 stay zero).
  vm.export @roundtrip
  vm.func @roundtrip(%a: f32, %b: f32) -> (f32, f32, f32, f32) {
    %c16 = vm.const.i64 16
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c2 = vm.const.i64 2
    %c3 = vm.const.i64 3
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %c16, %align : !vm.buffer
    vm.buffer.store.f32 %a, %buf[%c0] : f32 -> !vm.buffer
    vm.buffer.store.f32 %b, %buf[%c3] : f32 -> !vm.buffer
    %v0 = vm.buffer.load.f32 %buf[%c0] : !vm.buffer -> f32
    %v1 = vm.buffer.load.f32 %buf[%c1] : !vm.buffer -> f32
    %v2 = vm.buffer.load.f32 %buf[%c2] : !vm.buffer -> f32
    %v3 = vm.buffer.load.f32 %buf[%c3] : !vm.buffer -> f32
    vm.return %v0, %v1, %v2, %v3 : f32, f32, f32, f32
  }
  // Allocates %len bytes, stores %v at element %store_at, loads element %load_at.
  vm.export @store_load
  vm.func @store_load(%len: i64, %store_at: i64, %load_at: i64, %v: f32) -> f32 {
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %len, %align : !vm.buffer
    vm.buffer.store.f32 %v, %buf[%store_at] : f32 -> !vm.buffer
    %r = vm.buffer.load.f32 %buf[%load_at] : !vm.buffer -> f32
    vm.return %r : f32
  }
  // Allocates %len bytes and loads element %load_at (fresh buffers are zeroed).
  vm.export @load_fresh
  vm.func @load_fresh(%len: i64, %load_at: i64) -> f32 {
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %len, %align : !vm.buffer
    %r = vm.buffer.load.f32 %buf[%load_at] : !vm.buffer -> f32
    vm.return %r : f32
  }
  // Fills elements [%offset, %offset + %length) of a 16-byte buffer with %v,
  // then reads all four elements.
  vm.export @fill
  vm.func @fill(%offset: i64, %length: i64, %v: f32) -> (f32, f32, f32, f32) {
    %c16 = vm.const.i64 16
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c2 = vm.const.i64 2
    %c3 = vm.const.i64 3
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %c16, %align : !vm.buffer
    vm.buffer.fill.f32 %buf, %offset, %length, %v : f32 -> !vm.buffer
    %v0 = vm.buffer.load.f32 %buf[%c0] : !vm.buffer -> f32
    %v1 = vm.buffer.load.f32 %buf[%c1] : !vm.buffer -> f32
    %v2 = vm.buffer.load.f32 %buf[%c2] : !vm.buffer -> f32
    %v3 = vm.buffer.load.f32 %buf[%c3] : !vm.buffer -> f32
    vm.return %v0, %v1, %v2, %v3 : f32, f32, f32, f32
  }
  // Bytes written one at a time, read back as a little-endian f32.
  vm.export @from_bytes
  vm.func @from_bytes(%b0: i32, %b1: i32, %b2: i32, %b3: i32) -> f32 {
    %c4 = vm.const.i64 4
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c2 = vm.const.i64 2
    %c3 = vm.const.i64 3
    %align = vm.const.i32 4
    %buf = vm.buffer.alloc %c4, %align : !vm.buffer
    vm.buffer.store.i8 %b0, %buf[%c0] : i32 -> !vm.buffer
    vm.buffer.store.i8 %b1, %buf[%c1] : i32 -> !vm.buffer
    vm.buffer.store.i8 %b2, %buf[%c2] : i32 -> !vm.buffer
    vm.buffer.store.i8 %b3, %buf[%c3] : i32 -> !vm.buffer
    %r = vm.buffer.load.f32 %buf[%c0] : !vm.buffer -> f32
    vm.return %r : f32
  }
  // An f32 stored and read back as its bytes / as an i32.
  vm.export @to_bits
  vm.func @to_bits(%v: f32) -> (i32, i32) {
    %c4 = vm.const.i64 4
    %c0 = vm.const.i64 0
    %c3 = vm.const.i64 3
    %align = vm.const.i32 4
    %buf = vm.buffer.alloc %c4, %align : !vm.buffer
    vm.buffer.store.f32 %v, %buf[%c0] : f32 -> !vm.buffer
    %bits = vm.buffer.load.i32 %buf[%c0] : !vm.buffer -> i32
    %top = vm.buffer.load.i8.u %buf[%c3] : !vm.buffer -> i32
    vm.return %bits, %top : i32, i32
  }
  // Read-only rodata buffer.
  vm.export @rodata_load
  vm.func @rodata_load(%i: i64) -> f32 {
    %buf = vm.const.ref.rodata @data : !vm.buffer
    %r = vm.buffer.load.f32 %buf[%i] : !vm.buffer -> f32
    vm.return %r : f32
  }
  vm.export @rodata_store
  vm.func @rodata_store(%i: i64, %v: f32) -> f32 {
    %buf = vm.const.ref.rodata @data : !vm.buffer
    vm.buffer.store.f32 %v, %buf[%i] : f32 -> !vm.buffer
    %r = vm.buffer.load.f32 %buf[%i] : !vm.buffer -> f32
    vm.return %r : f32
  }
  vm.export @rodata_fill
  vm.func @rodata_fill(%v: f32) -> f32 {
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %buf = vm.const.ref.rodata @data : !vm.buffer
    vm.buffer.fill.f32 %buf, %c0, %c1, %v : f32 -> !vm.buffer
    %r = vm.buffer.load.f32 %buf[%c0] : !vm.buffer -> f32
    vm.return %r : f32
  }
  // A cloned rodata buffer is mutable.
  vm.export @rodata_clone_store
  vm.func @rodata_clone_store(%i: i64, %v: f32) -> (f32, f32) {
    %c0 = vm.const.i64 0
    %c16 = vm.const.i64 16
    %align = vm.const.i32 16
    %ro = vm.const.ref.rodata @data : !vm.buffer
    %buf = vm.buffer.clone %ro, %c0, %c16, %align : !vm.buffer -> !vm.buffer
    vm.buffer.store.f32 %v, %buf[%i] : f32 -> !vm.buffer
    %r = vm.buffer.load.f32 %buf[%i] : !vm.buffer -> f32
    %o = vm.buffer.load.f32 %ro[%i] : !vm.buffer -> f32
    vm.return %r, %o : f32, f32
  }
  // Null buffer operands, chosen at run time so nothing folds.
  vm.export @null_load
  vm.func @null_load(%use_null: i32) -> f32 {
    %c0 = vm.const.i64 0
    %c4 = vm.const.i64 4
    %align = vm.const.i32 4
    %null = vm.const.ref.zero : !vm.buffer
    %real = vm.buffer.alloc %c4, %align : !vm.buffer
    %buf = vm.select.ref %use_null, %null, %real : !vm.buffer
    %r = vm.buffer.load.f32 %buf[%c0] : !vm.buffer -> f32
    vm.return %r : f32
  }
  vm.export @null_store
  vm.func @null_store(%use_null: i32, %v: f32) {
    %c0 = vm.const.i64 0
    %c4 = vm.const.i64 4
    %align = vm.const.i32 4
    %null = vm.const.ref.zero : !vm.buffer
    %real = vm.buffer.alloc %c4, %align : !vm.buffer
    %buf = vm.select.ref %use_null, %null, %real : !vm.buffer
    vm.buffer.store.f32 %v, %buf[%c0] : f32 -> !vm.buffer
    vm.return
  }
  vm.export @null_fill
  vm.func @null_fill(%use_null: i32, %v: f32) {
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c4 = vm.const.i64 4
    %align = vm.const.i32 4
    %null = vm.const.ref.zero : !vm.buffer
    %real = vm.buffer.alloc %c4, %align : !vm.buffer
    %buf = vm.select.ref %use_null, %null, %real : !vm.buffer
    vm.buffer.fill.f32 %buf, %c0, %c1, %v : f32 -> !vm.buffer
    vm.return
  }
  // The buffer itself handed back to the caller.
  vm.export @buffer_result
  vm.func @buffer_result(%a: f32) -> !vm.buffer {
    %c8 = vm.const.i64 8
    %c0 = vm.const.i64 0
    %c2 = vm.const.i64 2
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %c8, %align : !vm.buffer
    vm.buffer.fill.f32 %buf, %c0, %c2, %a : f32 -> !vm.buffer
    vm.return %buf : !vm.buffer
  }
}
