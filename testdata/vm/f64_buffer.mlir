// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true --iree-vm-target-extension-f64=true
// EXT_F64 buffer ops: buffer.load.f64, buffer.store.f64, buffer.fill.f64.
// Offsets and lengths are in f64 elements (i64); the runtime checks
// (offset + length) * 8 <= buffer byte length.
vm.module @f64_buffer {
  vm.rodata private @data dense<[1.5, -2.0, 0.1, 0x7FF8000000000001]> : tensor<4xf64>

  // Stores %a at element 0 and %b at element 3 of a fresh 32-byte buffer and
  // reads elements 0..3 back (1 and 2 stay zero).
  vm.export @roundtrip
  vm.func @roundtrip(%a: f64, %b: f64) -> (f64, f64, f64, f64) {
    %c32 = vm.const.i64 32
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c2 = vm.const.i64 2
    %c3 = vm.const.i64 3
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %c32, %align : !vm.buffer
    vm.buffer.store.f64 %a, %buf[%c0] : f64 -> !vm.buffer
    vm.buffer.store.f64 %b, %buf[%c3] : f64 -> !vm.buffer
    %v0 = vm.buffer.load.f64 %buf[%c0] : !vm.buffer -> f64
    %v1 = vm.buffer.load.f64 %buf[%c1] : !vm.buffer -> f64
    %v2 = vm.buffer.load.f64 %buf[%c2] : !vm.buffer -> f64
    %v3 = vm.buffer.load.f64 %buf[%c3] : !vm.buffer -> f64
    vm.return %v0, %v1, %v2, %v3 : f64, f64, f64, f64
  }
  // Allocates %len bytes, stores %v at element %store_at, loads element %load_at.
  vm.export @store_load
  vm.func @store_load(%len: i64, %store_at: i64, %load_at: i64, %v: f64) -> f64 {
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %len, %align : !vm.buffer
    vm.buffer.store.f64 %v, %buf[%store_at] : f64 -> !vm.buffer
    %r = vm.buffer.load.f64 %buf[%load_at] : !vm.buffer -> f64
    vm.return %r : f64
  }
  // Allocates %len bytes and loads element %load_at (fresh buffers are zeroed).
  vm.export @load_fresh
  vm.func @load_fresh(%len: i64, %load_at: i64) -> f64 {
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %len, %align : !vm.buffer
    %r = vm.buffer.load.f64 %buf[%load_at] : !vm.buffer -> f64
    vm.return %r : f64
  }
  // Fills elements [%offset, %offset + %length) of a 32-byte buffer with %v,
  // then reads all four elements.
  vm.export @fill
  vm.func @fill(%offset: i64, %length: i64, %v: f64) -> (f64, f64, f64, f64) {
    %c32 = vm.const.i64 32
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c2 = vm.const.i64 2
    %c3 = vm.const.i64 3
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %c32, %align : !vm.buffer
    vm.buffer.fill.f64 %buf, %offset, %length, %v : f64 -> !vm.buffer
    %v0 = vm.buffer.load.f64 %buf[%c0] : !vm.buffer -> f64
    %v1 = vm.buffer.load.f64 %buf[%c1] : !vm.buffer -> f64
    %v2 = vm.buffer.load.f64 %buf[%c2] : !vm.buffer -> f64
    %v3 = vm.buffer.load.f64 %buf[%c3] : !vm.buffer -> f64
    vm.return %v0, %v1, %v2, %v3 : f64, f64, f64, f64
  }
  // Two 32-bit words written (low word first), read back as a little-endian f64.
  vm.export @from_words
  vm.func @from_words(%lo: i32, %hi: i32) -> f64 {
    %c8 = vm.const.i64 8
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %align = vm.const.i32 8
    %buf = vm.buffer.alloc %c8, %align : !vm.buffer
    vm.buffer.store.i32 %lo, %buf[%c0] : i32 -> !vm.buffer
    vm.buffer.store.i32 %hi, %buf[%c1] : i32 -> !vm.buffer
    %r = vm.buffer.load.f64 %buf[%c0] : !vm.buffer -> f64
    vm.return %r : f64
  }
  // An f64 stored and read back as an i64, its high i32 word and its top byte.
  vm.export @to_bits
  vm.func @to_bits(%v: f64) -> (i64, i32, i32) {
    %c8 = vm.const.i64 8
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c7 = vm.const.i64 7
    %align = vm.const.i32 8
    %buf = vm.buffer.alloc %c8, %align : !vm.buffer
    vm.buffer.store.f64 %v, %buf[%c0] : f64 -> !vm.buffer
    %bits = vm.buffer.load.i64 %buf[%c0] : !vm.buffer -> i64
    %hi = vm.buffer.load.i32 %buf[%c1] : !vm.buffer -> i32
    %top = vm.buffer.load.i8.u %buf[%c7] : !vm.buffer -> i32
    vm.return %bits, %hi, %top : i64, i32, i32
  }
  // An f64 buffer viewed as f32 elements (and back).
  vm.export @f32_view
  vm.func @f32_view(%v: f64) -> (f32, f32, f64) {
    %c8 = vm.const.i64 8
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %align = vm.const.i32 8
    %buf = vm.buffer.alloc %c8, %align : !vm.buffer
    vm.buffer.store.f64 %v, %buf[%c0] : f64 -> !vm.buffer
    %lo = vm.buffer.load.f32 %buf[%c0] : !vm.buffer -> f32
    %hi = vm.buffer.load.f32 %buf[%c1] : !vm.buffer -> f32
    vm.buffer.fill.f32 %buf, %c1, %c1, %lo : f32 -> !vm.buffer
    %back = vm.buffer.load.f64 %buf[%c0] : !vm.buffer -> f64
    vm.return %lo, %hi, %back : f32, f32, f64
  }
  // Read-only rodata buffer.
  vm.export @rodata_load
  vm.func @rodata_load(%i: i64) -> f64 {
    %buf = vm.const.ref.rodata @data : !vm.buffer
    %r = vm.buffer.load.f64 %buf[%i] : !vm.buffer -> f64
    vm.return %r : f64
  }
  vm.export @rodata_store
  vm.func @rodata_store(%i: i64, %v: f64) -> f64 {
    %buf = vm.const.ref.rodata @data : !vm.buffer
    vm.buffer.store.f64 %v, %buf[%i] : f64 -> !vm.buffer
    %r = vm.buffer.load.f64 %buf[%i] : !vm.buffer -> f64
    vm.return %r : f64
  }
  vm.export @rodata_fill
  vm.func @rodata_fill(%v: f64) -> f64 {
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %buf = vm.const.ref.rodata @data : !vm.buffer
    vm.buffer.fill.f64 %buf, %c0, %c1, %v : f64 -> !vm.buffer
    %r = vm.buffer.load.f64 %buf[%c0] : !vm.buffer -> f64
    vm.return %r : f64
  }
  // A cloned rodata buffer is mutable.
  vm.export @rodata_clone_store
  vm.func @rodata_clone_store(%i: i64, %v: f64) -> (f64, f64) {
    %c0 = vm.const.i64 0
    %c32 = vm.const.i64 32
    %align = vm.const.i32 16
    %ro = vm.const.ref.rodata @data : !vm.buffer
    %buf = vm.buffer.clone %ro, %c0, %c32, %align : !vm.buffer -> !vm.buffer
    vm.buffer.store.f64 %v, %buf[%i] : f64 -> !vm.buffer
    %r = vm.buffer.load.f64 %buf[%i] : !vm.buffer -> f64
    %o = vm.buffer.load.f64 %ro[%i] : !vm.buffer -> f64
    vm.return %r, %o : f64, f64
  }
  // Null buffer operands, chosen at run time so nothing folds.
  vm.export @null_load
  vm.func @null_load(%use_null: i32) -> f64 {
    %c0 = vm.const.i64 0
    %c8 = vm.const.i64 8
    %align = vm.const.i32 8
    %null = vm.const.ref.zero : !vm.buffer
    %real = vm.buffer.alloc %c8, %align : !vm.buffer
    %buf = vm.select.ref %use_null, %null, %real : !vm.buffer
    %r = vm.buffer.load.f64 %buf[%c0] : !vm.buffer -> f64
    vm.return %r : f64
  }
  vm.export @null_store
  vm.func @null_store(%use_null: i32, %v: f64) {
    %c0 = vm.const.i64 0
    %c8 = vm.const.i64 8
    %align = vm.const.i32 8
    %null = vm.const.ref.zero : !vm.buffer
    %real = vm.buffer.alloc %c8, %align : !vm.buffer
    %buf = vm.select.ref %use_null, %null, %real : !vm.buffer
    vm.buffer.store.f64 %v, %buf[%c0] : f64 -> !vm.buffer
    vm.return
  }
  vm.export @null_fill
  vm.func @null_fill(%use_null: i32, %v: f64) {
    %c0 = vm.const.i64 0
    %c1 = vm.const.i64 1
    %c8 = vm.const.i64 8
    %align = vm.const.i32 8
    %null = vm.const.ref.zero : !vm.buffer
    %real = vm.buffer.alloc %c8, %align : !vm.buffer
    %buf = vm.select.ref %use_null, %null, %real : !vm.buffer
    vm.buffer.fill.f64 %buf, %c0, %c1, %v : f64 -> !vm.buffer
    vm.return
  }
  // The buffer itself handed back to the caller.
  vm.export @buffer_result
  vm.func @buffer_result(%a: f64) -> !vm.buffer {
    %c16 = vm.const.i64 16
    %c0 = vm.const.i64 0
    %c2 = vm.const.i64 2
    %align = vm.const.i32 16
    %buf = vm.buffer.alloc %c16, %align : !vm.buffer
    vm.buffer.fill.f64 %buf, %c0, %c2, %a : f64 -> !vm.buffer
    vm.return %buf : !vm.buffer
  }
}
