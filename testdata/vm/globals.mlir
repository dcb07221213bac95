// COMPILE: --compile-mode=vm
// Module globals: i32, i64 and ref; direct and indirect access; initial
// values and a vm.initializer (which becomes the exported `__init`).
// Value globals live in .rwdata at byte offsets assigned by the compiler
// (as disassembled: @g32 at 0, @h32 at 4, @counter at 8, @init_seen at 12,
// @g64 at 16, @h64 at 24; 32 bytes); ref globals are ordinals into .refs
// (@gbuf 0, @hbuf 1). The indirect forms take those
// offsets/ordinals from arguments. See the disassembly for the layout.
vm.module @globals {
  vm.global.i64 private mutable @g64 = 1234567890123 : i64
  vm.global.i64 private mutable @h64 : i64
  vm.global.i32 private mutable @g32 = 42 : i32
  vm.global.i32 private mutable @h32 = -7 : i32
  vm.global.i32 private mutable @counter = 0 : i32
  vm.global.i32 private mutable @init_seen : i32
  vm.global.ref private mutable @gbuf : !vm.buffer
  vm.global.ref private mutable @hbuf : !vm.buffer

  // Runs once when the module is loaded into the context.
  vm.initializer {
    %c16 = vm.const.i64 16
    %c8 = vm.const.i32 8
    %b = vm.buffer.alloc %c16, %c8 : !vm.buffer
    vm.global.store.ref %b, @gbuf : !vm.buffer
    %c1 = vm.const.i32 1
    vm.global.store.i32 %c1, @init_seen : i32
    %c99 = vm.const.i64 -99
    vm.global.store.i64 %c99, @h64 : i64
    vm.return
  }

  // Initial values as seen by a fresh context.
  vm.export @initial
  vm.func @initial() -> (i64, i64, i32, i32, i32, i32) {
    %a = vm.global.load.i64 @g64 : i64
    %b = vm.global.load.i64 @h64 : i64
    %c = vm.global.load.i32 @g32 : i32
    %d = vm.global.load.i32 @h32 : i32
    %e = vm.global.load.i32 @counter : i32
    %f = vm.global.load.i32 @init_seen : i32
    vm.return %a, %b, %c, %d, %e, %f : i64, i64, i32, i32, i32, i32
  }

  // Store then load back, returning old and new values.
  vm.export @store_i32
  vm.func @store_i32(%v: i32) -> (i32, i32) {
    %old = vm.global.load.i32 @g32 : i32
    vm.global.store.i32 %v, @g32 : i32
    %new = vm.global.load.i32 @g32 : i32
    vm.return %old, %new : i32, i32
  }
  vm.export @store_i64
  vm.func @store_i64(%v: i64) -> (i64, i64) {
    %old = vm.global.load.i64 @g64 : i64
    vm.global.store.i64 %v, @g64 : i64
    %new = vm.global.load.i64 @g64 : i64
    vm.return %old, %new : i64, i64
  }

  // Mutation across calls: @bump increments @counter; @bump_n calls it n
  // times and returns the final value.
  vm.func private @bump() -> i32 {
    %c1 = vm.const.i32 1
    %v = vm.global.load.i32 @counter : i32
    %n = vm.add.i32 %v, %c1 : i32
    vm.global.store.i32 %n, @counter : i32
    vm.return %n : i32
  }
  vm.export @bump_n
  vm.func @bump_n(%n: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    vm.br ^loop(%n : i32)
  ^loop(%k: i32):
    %done = vm.cmp.lt.i32.s %k, %c1 : i32
    vm.cond_br %done, ^exit, ^body
  ^body:
    %ignored = vm.call @bump() : () -> i32
    %k2 = vm.sub.i32 %k, %c1 : i32
    vm.br ^loop(%k2 : i32)
  ^exit:
    %r = vm.global.load.i32 @counter : i32
    vm.return %r : i32
  }

  // Indirect i32/i64 access by byte offset.
  vm.export @indirect_i32
  vm.func @indirect_i32(%offset: i32, %v: i32) -> (i32, i32, i32, i32) {
    %old = vm.global.load.indirect.i32 %offset : i32 -> i32
    vm.global.store.indirect.i32 %v, %offset : i32 -> i32
    %new = vm.global.load.indirect.i32 %offset : i32 -> i32
    %g = vm.global.load.i32 @g32 : i32
    %h = vm.global.load.i32 @h32 : i32
    vm.return %old, %new, %g, %h : i32, i32, i32, i32
  }
  vm.export @indirect_i64
  vm.func @indirect_i64(%offset: i32, %v: i64) -> (i64, i64, i64, i64) {
    %old = vm.global.load.indirect.i64 %offset : i32 -> i64
    vm.global.store.indirect.i64 %v, %offset : i64 -> i32
    %new = vm.global.load.indirect.i64 %offset : i32 -> i64
    %g = vm.global.load.i64 @g64 : i64
    %h = vm.global.load.i64 @h64 : i64
    vm.return %old, %new, %g, %h : i64, i64, i64, i64
  }
  // Indirect access through the compiler's own address (folded to a
  // constant offset).
  vm.export @indirect_by_address
  vm.func @indirect_by_address(%v: i32) -> (i32, i32) {
    %p = vm.global.address @h32 : !util.ptr<i32>
    %old = vm.global.load.indirect.i32 %p : !util.ptr<i32> -> i32
    vm.global.store.indirect.i32 %v, %p : i32 -> !util.ptr<i32>
    %new = vm.global.load.i32 @h32 : i32
    vm.return %old, %new : i32, i32
  }

  // Ref globals: the initializer set @gbuf; @hbuf starts null.
  vm.export @refs
  vm.func @refs() -> (i32, i32, i64) {
    %g = vm.global.load.ref @gbuf : !vm.buffer
    %h = vm.global.load.ref @hbuf : !vm.buffer
    %gnz = vm.cmp.nz.ref %g : !vm.buffer
    %hnz = vm.cmp.nz.ref %h : !vm.buffer
    %l = vm.buffer.length %g : !vm.buffer -> i64
    vm.return %gnz, %hnz, %l : i32, i32, i64
  }
  // Store a new buffer into @hbuf and read its length back through a load.
  vm.export @store_ref
  vm.func @store_ref(%len: i64) -> (i64, i32) {
    %c1 = vm.const.i32 1
    %b = vm.buffer.alloc %len, %c1 : !vm.buffer
    vm.global.store.ref %b, @hbuf : !vm.buffer
    %h = vm.global.load.ref @hbuf : !vm.buffer
    %l = vm.buffer.length %h : !vm.buffer -> i64
    %same = vm.cmp.eq.ref %b, %h : !vm.buffer
    vm.return %l, %same : i64, i32
  }
  // Indirect ref access by ordinal: stores a buffer of %len bytes into ref
  // global %ordinal, loads it back, and reports the two globals' lengths
  // (-1 for null).
  vm.export @indirect_ref
  vm.func @indirect_ref(%ordinal: i32, %len: i64) -> (i64, i64) {
    %c1 = vm.const.i32 1
    %b = vm.buffer.alloc %len, %c1 : !vm.buffer
    vm.global.store.indirect.ref %b, %ordinal : !vm.buffer -> i32
    %x = vm.global.load.indirect.ref %ordinal : i32 -> !vm.buffer
    %lx = vm.buffer.length %x : !vm.buffer -> i64
    %h = vm.global.load.ref @hbuf : !vm.buffer
    %hnz = vm.cmp.nz.ref %h : !vm.buffer
    vm.cond_br %hnz, ^has(%lx : i64), ^none(%lx : i64)
  ^has(%a: i64):
    %lh = vm.buffer.length %h : !vm.buffer -> i64
    vm.return %a, %lh : i64, i64
  ^none(%b2: i64):
    %m1 = vm.const.i64 -1
    vm.return %b2, %m1 : i64, i64
  }
  // Load an indirect ref without storing first.
  vm.export @load_indirect_ref
  vm.func @load_indirect_ref(%ordinal: i32) -> i32 {
    %x = vm.global.load.indirect.ref %ordinal : i32 -> !vm.buffer
    %nz = vm.cmp.nz.ref %x : !vm.buffer
    vm.return %nz : i32
  }
}
