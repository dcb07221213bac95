// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true
// EXT_F32 indirect globals: vm.global.load.indirect.f32 and
// vm.global.store.indirect.f32 with the byte offset into rwdata passed in at
// run time. Layout: @g0 at 0, @g1 at 4, @g2 at 8, @g3 at 12 (16 bytes).
//
// NOTE: iree-compile 3.13 encodes vm.global.load.indirect.f32 as the EXT_F64
// op global.load.indirect.f64 (prefix 0xE1, opcode 0x02; the compiler's op
// definition carries the ExtF64 trait), so the module requires EXT_F64 and the
// load reads 8 bytes into a register pair: the register after the f32 result
// receives the next 4 bytes of rwdata. Upstream's bounds check for that op
// only requires offset+4 <= 16, and its verifier accepts the odd-aligned pair.
// vm.global.store.indirect.f32 is encoded correctly (EXT_F32 0x03).
// (These functions live apart from f32_state so that a loader which rejects
// this module does not take the other f32 state tests down with it.)
vm.module @f32_indirect {
  vm.global.f32 private mutable @g0 : f32
  vm.global.f32 private mutable @g1 = 2.5 : f32
  vm.global.f32 private mutable @g2 : f32
  vm.global.f32 private mutable @g3 = -1.25 : f32

  // The indirect load, then every global read directly.
  vm.export @load
  vm.func @load(%offset: i32) -> (f32, f32, f32, f32, f32) {
    %v = vm.global.load.indirect.f32 %offset : i32 -> f32
    %a = vm.global.load.f32 @g0 : f32
    %b = vm.global.load.f32 @g1 : f32
    %c = vm.global.load.f32 @g2 : f32
    %d = vm.global.load.f32 @g3 : f32
    vm.return %v, %a, %b, %c, %d : f32, f32, f32, f32, f32
  }
  // The indirect store, then every global read directly.
  vm.export @store
  vm.func @store(%offset: i32, %x: f32) -> (f32, f32, f32, f32) {
    vm.global.store.indirect.f32 %x, %offset : f32 -> i32
    %a = vm.global.load.f32 @g0 : f32
    %b = vm.global.load.f32 @g1 : f32
    %c = vm.global.load.f32 @g2 : f32
    %d = vm.global.load.f32 @g3 : f32
    vm.return %a, %b, %c, %d : f32, f32, f32, f32
  }
  // Load, store, load through the same offset. The second load's extra
  // register write lands on the register holding %before (see the
  // disassembly), so upstream returns the next global's value there.
  vm.export @swap
  vm.func @swap(%offset: i32, %x: f32) -> (f32, f32, f32, f32) {
    %before = vm.global.load.indirect.f32 %offset : i32 -> f32
    vm.global.store.indirect.f32 %x, %offset : f32 -> i32
    %after = vm.global.load.indirect.f32 %offset : i32 -> f32
    %c = vm.global.load.f32 @g2 : f32
    %d = vm.global.load.f32 @g3 : f32
    vm.return %before, %after, %c, %d : f32, f32, f32, f32
  }
  // Direct stores keep every global mutable.
  vm.export @set
  vm.func @set(%x: f32) {
    vm.global.store.f32 %x, @g0 : f32
    vm.global.store.f32 %x, @g1 : f32
    vm.global.store.f32 %x, @g2 : f32
    vm.global.store.f32 %x, @g3 : f32
    vm.return
  }
}
