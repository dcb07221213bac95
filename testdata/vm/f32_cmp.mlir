// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true
// EXT_F32 comparisons: eq/ne/lt/lte, ordered (.o) and unordered (.u), and
// cmp.nan. Each function returns all predicates for one operand pair.
vm.module @f32_cmp {
  vm.export @ordered
  vm.func @ordered(%a: f32, %b: f32) -> (i32, i32, i32, i32) {
    %eq = vm.cmp.eq.f32.o %a, %b : f32
    %ne = vm.cmp.ne.f32.o %a, %b : f32
    %lt = vm.cmp.lt.f32.o %a, %b : f32
    %lte = vm.cmp.lte.f32.o %a, %b : f32
    vm.return %eq, %ne, %lt, %lte : i32, i32, i32, i32
  }
  vm.export @unordered
  vm.func @unordered(%a: f32, %b: f32) -> (i32, i32, i32, i32) {
    %eq = vm.cmp.eq.f32.u %a, %b : f32
    %ne = vm.cmp.ne.f32.u %a, %b : f32
    %lt = vm.cmp.lt.f32.u %a, %b : f32
    %lte = vm.cmp.lte.f32.u %a, %b : f32
    vm.return %eq, %ne, %lt, %lte : i32, i32, i32, i32
  }
  vm.export @is_nan
  vm.func @is_nan(%a: f32) -> i32 {
    %r = vm.cmp.nan.f32 %a : f32
    vm.return %r : i32
  }
  // Pseudo-ops (gt, gte, nz) that the compiler lowers onto the ops above.
  vm.export @pseudo
  vm.func @pseudo(%a: f32, %b: f32) -> (i32, i32, i32, i32) {
    %gt = vm.cmp.gt.f32.o %a, %b : f32
    %gte = vm.cmp.gte.f32.u %a, %b : f32
    %nzo = vm.cmp.nz.f32.o %a : f32
    %nzu = vm.cmp.nz.f32.u %a : f32
    vm.return %gt, %gte, %nzo, %nzu : i32, i32, i32, i32
  }
  // A comparison feeding a branch.
  vm.export @pick_less
  vm.func @pick_less(%a: f32, %b: f32) -> f32 {
    %lt = vm.cmp.lt.f32.o %a, %b : f32
    vm.cond_br %lt, ^bb1, ^bb2
  ^bb1:
    vm.return %a : f32
  ^bb2:
    vm.return %b : f32
  }
}
