// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true
// EXT_F32 conversions: int <-> float casts (32- and 64-bit, signed and
// unsigned) and bitcasts.
vm.module @f32_cast {
  vm.export @si32_to_f32
  vm.func @si32_to_f32(%a: i32) -> f32 {
    %r = vm.cast.si32.f32 %a : i32 -> f32
    vm.return %r : f32
  }
  vm.export @ui32_to_f32
  vm.func @ui32_to_f32(%a: i32) -> f32 {
    %r = vm.cast.ui32.f32 %a : i32 -> f32
    vm.return %r : f32
  }
  vm.export @f32_to_si32
  vm.func @f32_to_si32(%a: f32) -> i32 {
    %r = vm.cast.f32.si32 %a : f32 -> i32
    vm.return %r : i32
  }
  vm.export @f32_to_ui32
  vm.func @f32_to_ui32(%a: f32) -> i32 {
    %r = vm.cast.f32.ui32 %a : f32 -> i32
    vm.return %r : i32
  }
  vm.export @si64_to_f32
  vm.func @si64_to_f32(%a: i64) -> f32 {
    %r = vm.cast.si64.f32 %a : i64 -> f32
    vm.return %r : f32
  }
  vm.export @ui64_to_f32
  vm.func @ui64_to_f32(%a: i64) -> f32 {
    %r = vm.cast.ui64.f32 %a : i64 -> f32
    vm.return %r : f32
  }
  vm.export @f32_to_si64
  vm.func @f32_to_si64(%a: f32) -> i64 {
    %r = vm.cast.f32.si64 %a : f32 -> i64
    vm.return %r : i64
  }
  vm.export @f32_to_ui64
  vm.func @f32_to_ui64(%a: f32) -> i64 {
    %r = vm.cast.f32.ui64 %a : f32 -> i64
    vm.return %r : i64
  }
  vm.export @bitcast_i32_to_f32
  vm.func @bitcast_i32_to_f32(%a: i32) -> f32 {
    %r = vm.bitcast.i32.f32 %a : i32 -> f32
    vm.return %r : f32
  }
  vm.export @bitcast_f32_to_i32
  vm.func @bitcast_f32_to_i32(%a: f32) -> i32 {
    %r = vm.bitcast.f32.i32 %a : f32 -> i32
    vm.return %r : i32
  }
  // Every float->int cast of one value at once.
  vm.export @to_ints
  vm.func @to_ints(%a: f32) -> (i32, i32, i64, i64) {
    %s32 = vm.cast.f32.si32 %a : f32 -> i32
    %u32 = vm.cast.f32.ui32 %a : f32 -> i32
    %s64 = vm.cast.f32.si64 %a : f32 -> i64
    %u64 = vm.cast.f32.ui64 %a : f32 -> i64
    vm.return %s32, %u32, %s64, %u64 : i32, i32, i64, i64
  }
}
