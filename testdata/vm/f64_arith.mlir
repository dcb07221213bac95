// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true --iree-vm-target-extension-f64=true
// EXT_F64 arithmetic: add, sub, mul, div, rem, fma, abs, neg.
// Operands come in as function arguments so that nothing constant-folds.
vm.module @f64_arith {
  vm.export @add
  vm.func @add(%a: f64, %b: f64) -> f64 {
    %r = vm.add.f64 %a, %b : f64
    vm.return %r : f64
  }
  vm.export @sub
  vm.func @sub(%a: f64, %b: f64) -> f64 {
    %r = vm.sub.f64 %a, %b : f64
    vm.return %r : f64
  }
  vm.export @mul
  vm.func @mul(%a: f64, %b: f64) -> f64 {
    %r = vm.mul.f64 %a, %b : f64
    vm.return %r : f64
  }
  vm.export @div
  vm.func @div(%a: f64, %b: f64) -> f64 {
    %r = vm.div.f64 %a, %b : f64
    vm.return %r : f64
  }
  vm.export @rem
  vm.func @rem(%a: f64, %b: f64) -> f64 {
    %r = vm.rem.f64 %a, %b : f64
    vm.return %r : f64
  }
  vm.export @fma
  vm.func @fma(%a: f64, %b: f64, %c: f64) -> f64 {
    %r = vm.fma.f64 %a, %b, %c : f64
    vm.return %r : f64
  }
  vm.export @abs
  vm.func @abs(%a: f64) -> f64 {
    %r = vm.abs.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @neg
  vm.func @neg(%a: f64) -> f64 {
    %r = vm.neg.f64 %a : f64
    vm.return %r : f64
  }
  // Several ops chained in one function, two results.
  vm.export @mixed
  vm.func @mixed(%a: f64, %b: f64) -> (f64, f64) {
    %s = vm.add.f64 %a, %b : f64
    %d = vm.sub.f64 %a, %b : f64
    %p = vm.mul.f64 %s, %d : f64
    %n = vm.neg.f64 %p : f64
    %q = vm.div.f64 %n, %b : f64
    vm.return %p, %q : f64, f64
  }
}
