// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true
// EXT_F32 arithmetic: add, sub, mul, div, rem, fma, abs, neg.
// Operands come in as function arguments so that nothing constant-folds.
vm.module @f32_arith {
  vm.export @add
  vm.func @add(%a: f32, %b: f32) -> f32 {
    %r = vm.add.f32 %a, %b : f32
    vm.return %r : f32
  }
  vm.export @sub
  vm.func @sub(%a: f32, %b: f32) -> f32 {
    %r = vm.sub.f32 %a, %b : f32
    vm.return %r : f32
  }
  vm.export @mul
  vm.func @mul(%a: f32, %b: f32) -> f32 {
    %r = vm.mul.f32 %a, %b : f32
    vm.return %r : f32
  }
  vm.export @div
  vm.func @div(%a: f32, %b: f32) -> f32 {
    %r = vm.div.f32 %a, %b : f32
    vm.return %r : f32
  }
  vm.export @rem
  vm.func @rem(%a: f32, %b: f32) -> f32 {
    %r = vm.rem.f32 %a, %b : f32
    vm.return %r : f32
  }
  vm.export @fma
  vm.func @fma(%a: f32, %b: f32, %c: f32) -> f32 {
    %r = vm.fma.f32 %a, %b, %c : f32
    vm.return %r : f32
  }
  vm.export @abs
  vm.func @abs(%a: f32) -> f32 {
    %r = vm.abs.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @neg
  vm.func @neg(%a: f32) -> f32 {
    %r = vm.neg.f32 %a : f32
    vm.return %r : f32
  }
  // Several ops chained in one function, two results.
  vm.export @mixed
  vm.func @mixed(%a: f32, %b: f32) -> (f32, f32) {
    %s = vm.add.f32 %a, %b : f32
    %d = vm.sub.f32 %a, %b : f32
    %p = vm.mul.f32 %s, %d : f32
    %n = vm.neg.f32 %p : f32
    %q = vm.div.f32 %n, %b : f32
    vm.return %p, %q : f32, f32
  }
}
