// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true --iree-vm-target-extension-f64=true
// EXT_F64 rounding and min/max: ceil, floor, round, round.even, min, max.
vm.module @f64_round {
  vm.export @ceil
  vm.func @ceil(%a: f64) -> f64 {
    %r = vm.ceil.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @floor
  vm.func @floor(%a: f64) -> f64 {
    %r = vm.floor.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @round
  vm.func @round(%a: f64) -> f64 {
    %r = vm.round.f64 %a : f64
    vm.return %r : f64
  }
  vm.export @round_even
  vm.func @round_even(%a: f64) -> f64 {
    %r = vm.round.f64.even %a : f64
    vm.return %r : f64
  }
  // All four roundings of one value at once.
  vm.export @all
  vm.func @all(%a: f64) -> (f64, f64, f64, f64) {
    %c = vm.ceil.f64 %a : f64
    %f = vm.floor.f64 %a : f64
    %r = vm.round.f64 %a : f64
    %e = vm.round.f64.even %a : f64
    vm.return %c, %f, %r, %e : f64, f64, f64, f64
  }
  // The four roundings converted to i64, so large values print exactly.
  vm.export @all_as_i64
  vm.func @all_as_i64(%a: f64) -> (i64, i64, i64, i64) {
    %c = vm.ceil.f64 %a : f64
    %f = vm.floor.f64 %a : f64
    %r = vm.round.f64 %a : f64
    %e = vm.round.f64.even %a : f64
    %ci = vm.cast.f64.si64 %c : f64 -> i64
    %fi = vm.cast.f64.si64 %f : f64 -> i64
    %ri = vm.cast.f64.si64 %r : f64 -> i64
    %ei = vm.cast.f64.si64 %e : f64 -> i64
    vm.return %ci, %fi, %ri, %ei : i64, i64, i64, i64
  }
  vm.export @min
  vm.func @min(%a: f64, %b: f64) -> f64 {
    %r = vm.min.f64 %a, %b : f64
    vm.return %r : f64
  }
  vm.export @max
  vm.func @max(%a: f64, %b: f64) -> f64 {
    %r = vm.max.f64 %a, %b : f64
    vm.return %r : f64
  }
}
