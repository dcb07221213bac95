// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true
// EXT_F32 rounding and min/max: ceil, floor, round, round.even, min, max.
vm.module @f32_round {
  vm.export @ceil
  vm.func @ceil(%a: f32) -> f32 {
    %r = vm.ceil.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @floor
  vm.func @floor(%a: f32) -> f32 {
    %r = vm.floor.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @round
  vm.func @round(%a: f32) -> f32 {
    %r = vm.round.f32 %a : f32
    vm.return %r : f32
  }
  vm.export @round_even
  vm.func @round_even(%a: f32) -> f32 {
    %r = vm.round.f32.even %a : f32
    vm.return %r : f32
  }
  // All four roundings of one value at once.
  vm.export @all
  vm.func @all(%a: f32) -> (f32, f32, f32, f32) {
    %c = vm.ceil.f32 %a : f32
    %f = vm.floor.f32 %a : f32
    %r = vm.round.f32 %a : f32
    %e = vm.round.f32.even %a : f32
    vm.return %c, %f, %r, %e : f32, f32, f32, f32
  }
  // The four roundings converted to i64, so large values print exactly.
  vm.export @all_as_i64
  vm.func @all_as_i64(%a: f32) -> (i64, i64, i64, i64) {
    %c = vm.ceil.f32 %a : f32
    %f = vm.floor.f32 %a : f32
    %r = vm.round.f32 %a : f32
    %e = vm.round.f32.even %a : f32
    %ci = vm.cast.f32.si64 %c : f32 -> i64
    %fi = vm.cast.f32.si64 %f : f32 -> i64
    %ri = vm.cast.f32.si64 %r : f32 -> i64
    %ei = vm.cast.f32.si64 %e : f32 -> i64
    vm.return %ci, %fi, %ri, %ei : i64, i64, i64, i64
  }
  vm.export @min
  vm.func @min(%a: f32, %b: f32) -> f32 {
    %r = vm.min.f32 %a, %b : f32
    vm.return %r : f32
  }
  vm.export @max
  vm.func @max(%a: f32, %b: f32) -> f32 {
    %r = vm.max.f32 %a, %b : f32
    vm.return %r : f32
  }
}
