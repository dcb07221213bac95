// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true --iree-vm-target-extension-f64=true
// EXT_F64 math functions (libm-backed) and fpowi (new in IREE 3.13).
vm.module @f64_math {
  vm.export @atan
  vm.func @atan(%a: f64) -> f64 {
    %r = vm.atan.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @atan2
  vm.func @atan2(%y: f64, %x: f64) -> f64 {
    %r = vm.atan2.f64 %y, %x : f64
    vm.return %r : f64
  }
  vm.export @cos
  vm.func @cos(%a: f64) -> f64 {
    %r = vm.cos.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @sin
  vm.func @sin(%a: f64) -> f64 {
    %r = vm.sin.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @exp
  vm.func @exp(%a: f64) -> f64 {
    %r = vm.exp.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @exp2
  vm.func @exp2(%a: f64) -> f64 {
    %r = vm.exp2.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @expm1
  vm.func @expm1(%a: f64) -> f64 {
    %r = vm.expm1.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @log
  vm.func @log(%a: f64) -> f64 {
    %r = vm.log.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @log10
  vm.func @log10(%a: f64) -> f64 {
    %r = vm.log10.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @log1p
  vm.func @log1p(%a: f64) -> f64 {
    %r = vm.log1p.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @log2
  vm.func @log2(%a: f64) -> f64 {
    %r = vm.log2.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @pow
  vm.func @pow(%a: f64, %b: f64) -> f64 {
    %r = vm.pow.f64 %a, %b : f64
    vm.return %r : f64
  }
  vm.export @rsqrt
  vm.func @rsqrt(%a: f64) -> f64 {
    %r = vm.rsqrt.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @sqrt
  vm.func @sqrt(%a: f64) -> f64 {
    %r = vm.sqrt.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @tanh
  vm.func @tanh(%a: f64) -> f64 {
    %r = vm.tanh.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @erf
  vm.func @erf(%a: f64) -> f64 {
    %r = vm.erf.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @fpowi
  vm.func @fpowi(%a: f64, %n: i64) -> f64 {
    %r = vm.fpowi.f64 %a, %n : f64
    vm.return %r : f64
  }
  // Exact bits of fpowi and pow results (%g shows only 6 digits).
  vm.export @fpowi_bits
  vm.func @fpowi_bits(%a: f64, %n: i64) -> i64 {
    %r = vm.fpowi.f64 %a, %n : f64
    %b = vm.bitcast.f64.i64 %r : f64 -> i64
    vm.return %b : i64
  }
  vm.export @pow_bits
  vm.func @pow_bits(%a: f64, %b: f64) -> i64 {
    %r = vm.pow.f64 %a, %b : f64
    %i = vm.bitcast.f64.i64 %r : f64 -> i64
    vm.return %i : i64
  }
}
