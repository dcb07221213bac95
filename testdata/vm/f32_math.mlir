// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true
// EXT_F32 math functions (libm-backed) and fpowi (new in IREE 3.13).
vm.module @f32_math {
  vm.export @atan
  vm.func @atan(%a: f32) -> f32 {
    %r = vm.atan.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @atan2
  vm.func @atan2(%y: f32, %x: f32) -> f32 {
    %r = vm.atan2.f32 %y, %x : f32
    vm.return %r : f32
  }
  vm.export @cos
  vm.func @cos(%a: f32) -> f32 {
    %r = vm.cos.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @sin
  vm.func @sin(%a: f32) -> f32 {
    %r = vm.sin.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @exp
  vm.func @exp(%a: f32) -> f32 {
    %r = vm.exp.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @exp2
  vm.func @exp2(%a: f32) -> f32 {
    %r = vm.exp2.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @expm1
  vm.func @expm1(%a: f32) -> f32 {
    %r = vm.expm1.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @log
  vm.func @log(%a: f32) -> f32 {
    %r = vm.log.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @log10
  vm.func @log10(%a: f32) -> f32 {
    %r = vm.log10.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @log1p
  vm.func @log1p(%a: f32) -> f32 {
    %r = vm.log1p.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @log2
  vm.func @log2(%a: f32) -> f32 {
    %r = vm.log2.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @pow
  vm.func @pow(%a: f32, %b: f32) -> f32 {
    %r = vm.pow.f32 %a, %b : f32
    vm.return %r : f32
  }
  vm.export @rsqrt
  vm.func @rsqrt(%a: f32) -> f32 {
    %r = vm.rsqrt.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @sqrt
  vm.func @sqrt(%a: f32) -> f32 {
    %r = vm.sqrt.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @tanh
  vm.func @tanh(%a: f32) -> f32 {
    %r = vm.tanh.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @erf
  vm.func @erf(%a: f32) -> f32 {
    %r = vm.erf.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @fpowi
  vm.func @fpowi(%a: f32, %n: i64) -> f32 {
    %r = vm.fpowi.f32 %a, %n : f32
    vm.return %r : f32
  }
}
