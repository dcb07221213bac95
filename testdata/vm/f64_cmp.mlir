// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true --iree-vm-target-extension-f64=true
// EXT_F64 comparisons: eq/ne/lt/lte, ordered (.o) and unordered (.u), and
// cmp.nan. Each function returns all predicates for one operand pair.
vm.module @f64_cmp {
  vm.export @ordered
  vm.func @ordered(%a: f64, %b: f64) -> (i32, i32, i32, i32) {
    %eq = vm.cmp.eq.f64.o %a, %b : f64
    %ne = vm.cmp.ne.f64.o %a, %b : f64
    %lt = vm.cmp.lt.f64.o %a, %b : f64
    %lte = vm.cmp.lte.f64.o %a, %b : f64
    vm.return %eq, %ne, %lt, %lte : i32, i32, i32, i32
  }
  vm.export @unordered
  vm.func @unordered(%a: f64, %b: f64) -> (i32, i32, i32, i32) {
    %eq = vm.cmp.eq.f64.u %a, %b : f64
    %ne = vm.cmp.ne.f64.u %a, %b : f64
    %lt = vm.cmp.lt.f64.u %a, %b : f64
    %lte = vm.cmp.lte.f64.u %a, %b : f64
    vm.return %eq, %ne, %lt, %lte : i32, i32, i32, i32
  }
  vm.export @is_nan
  vm.func @is_nan(%a: f64) -> i32 {
    %r = vm.cmp.nan.f64 %a : f64
    vm.return %r : i32
  }
  // Pseudo-ops (gt, gte, nz) that the compiler lowers onto the ops above.
  vm.export @pseudo
  vm.func @pseudo(%a: f64, %b: f64) -> (i32, i32, i32, i32) {
    %gt = vm.cmp.gt.f64.o %a, %b : f64
    %gte = vm.cmp.gte.f64.u %a, %b : f64
    %nzo = vm.cmp.nz.f64.o %a : f64
    %nzu = vm.cmp.nz.f64.u %a : f64
    vm.return %gt, %gte, %nzo, %nzu : i32, i32, i32, i32
  }
  // A comparison feeding a branch.
  vm.export @pick_less
  vm.func @pick_less(%a: f64, %b: f64) -> f64 {
    %lt = vm.cmp.lt.f64.o %a, %b : f64
    vm.cond_br %lt, ^bb1, ^bb2
  ^bb1:
    vm.return %a : f64
  ^bb2:
    vm.return %b : f64
  }
}
