// COMPILE: --compile-mode=vm
// select.{i32,i64,ref} and switch.{i32,i64,ref}. Ref values are buffers of
// distinct lengths; the functions return the chosen buffer's length (or -1
// for a null ref).
vm.module @select_switch {
  vm.export @select_i32
  vm.func @select_i32(%cond: i32, %a: i32, %b: i32) -> i32 {
    %r = vm.select.i32 %cond, %a, %b : i32
    vm.return %r : i32
  }
  vm.export @select_i64
  vm.func @select_i64(%cond: i32, %a: i64, %b: i64) -> i64 {
    %r = vm.select.i64 %cond, %a, %b : i64
    vm.return %r : i64
  }

  vm.func private @length_or_minus1(%b: !vm.buffer) -> i64 {
    %nz = vm.cmp.nz.ref %b : !vm.buffer
    vm.cond_br %nz, ^some, ^none
  ^some:
    %l = vm.buffer.length %b : !vm.buffer -> i64
    vm.return %l : i64
  ^none:
    %m1 = vm.const.i64 -1
    vm.return %m1 : i64
  }

  vm.export @select_ref
  vm.func @select_ref(%cond: i32, %la: i64, %lb: i64) -> i64 {
    %c1 = vm.const.i32 1
    %a = vm.buffer.alloc %la, %c1 : !vm.buffer
    %b = vm.buffer.alloc %lb, %c1 : !vm.buffer
    %r = vm.select.ref %cond, %a, %b : !vm.buffer
    %l = vm.call @length_or_minus1(%r) : (!vm.buffer) -> i64
    vm.return %l : i64
  }
  // Select between a buffer and null.
  vm.export @select_ref_null
  vm.func @select_ref_null(%cond: i32) -> i64 {
    %c1 = vm.const.i32 1
    %c5 = vm.const.i64 5
    %a = vm.buffer.alloc %c5, %c1 : !vm.buffer
    %n = vm.const.ref.zero : !vm.buffer
    %r = vm.select.ref %cond, %n, %a : !vm.buffer
    %l = vm.call @length_or_minus1(%r) : (!vm.buffer) -> i64
    vm.return %l : i64
  }

  vm.export @switch_i32
  vm.func @switch_i32(%index: i32) -> i32 {
    %c10 = vm.const.i32 10
    %c20 = vm.const.i32 20
    %c30 = vm.const.i32 30
    %dflt = vm.const.i32 -99
    %r = vm.switch.i32 %index[%c10, %c20, %c30] else %dflt : i32
    vm.return %r : i32
  }
  // Values from arguments as well.
  vm.export @switch_i32_args
  vm.func @switch_i32_args(%index: i32, %a: i32, %b: i32, %d: i32) -> i32 {
    %r = vm.switch.i32 %index[%a, %b] else %d : i32
    vm.return %r : i32
  }
  vm.export @switch_i64
  vm.func @switch_i64(%index: i32) -> i64 {
    %c10 = vm.const.i64 10000000000
    %c20 = vm.const.i64 -20000000000
    %c30 = vm.const.i64 30
    %c40 = vm.const.i64 40
    %dflt = vm.const.i64 -1
    %r = vm.switch.i64 %index[%c10, %c20, %c30, %c40] else %dflt : i64
    vm.return %r : i64
  }
  // 64-bit values from arguments. Upstream 3.13 reads the selected value
  // from the i32 register file (SwitchI64 in dispatch.c: `regs_i32[...]`), so
  // an in-range pick yields the low 32 bits sign-extended; the default is
  // read correctly.
  vm.export @switch_i64_args
  vm.func @switch_i64_args(%index: i32, %a: i64, %b: i64, %d: i64) -> i64 {
    %r = vm.switch.i64 %index[%a, %b] else %d : i64
    vm.return %r : i64
  }
  // switch.ref must stay the last function: upstream's iree-dump-module
  // cannot disassemble it (see `cargo xtask opcodes`).
  vm.export @switch_ref
  vm.func @switch_ref(%index: i32) -> i64 {
    %c1 = vm.const.i32 1
    %l1 = vm.const.i64 1
    %l2 = vm.const.i64 2
    %l3 = vm.const.i64 3
    %a = vm.buffer.alloc %l1, %c1 : !vm.buffer
    %b = vm.buffer.alloc %l2, %c1 : !vm.buffer
    %c = vm.buffer.alloc %l3, %c1 : !vm.buffer
    %n = vm.const.ref.zero : !vm.buffer
    %r = vm.switch.ref %index[%a, %b, %n] else %c : !vm.buffer
    %l = vm.call @length_or_minus1(%r) : (!vm.buffer) -> i64
    vm.return %l : i64
  }
}
