// COMPILE: --compile-mode=vm --iree-vm-target-extension-f32=true --iree-vm-target-extension-f64=true
// EXT_F64 conversions: i64 <-> f64 casts (signed and unsigned), bitcasts,
// trunc.f64.f32 and ext.f32.f64. (The EXT_F64 opcodes cast.si32.f64,
// cast.ui32.f64, cast.f64.si32 and cast.f64.ui32 have no op in the 3.13
// compiler, so they cannot be produced from MLIR.)
vm.module @f64_cast {
  vm.export @si64_to_f64
  vm.func @si64_to_f64(%a: i64) -> f64 {
    %r = vm.cast.si64.f64 %a : i64 -> f64
    vm.return %r : f64
  }
  vm.export @ui64_to_f64
  vm.func @ui64_to_f64(%a: i64) -> f64 {
    %r = vm.cast.ui64.f64 %a : i64 -> f64
    vm.return %r : f64
  }
  vm.export @f64_to_si64
  vm.func @f64_to_si64(%a: f64) -> i64 {
    %r = vm.cast.f64.si64 %a : f64 -> i64
    vm.return %r : i64
  }
  vm.export @f64_to_ui64
  vm.func @f64_to_ui64(%a: f64) -> i64 {
    %r = vm.cast.f64.ui64 %a : f64 -> i64
    vm.return %r : i64
  }
  // Both float->int casts of one value.
  vm.export @to_ints
  vm.func @to_ints(%a: f64) -> (i64, i64) {
    %s = vm.cast.f64.si64 %a : f64 -> i64
    %u = vm.cast.f64.ui64 %a : f64 -> i64
    vm.return %s, %u : i64, i64
  }
  // Both int->float casts of one value, and the int seen through i64->f64->i64.
  vm.export @from_int
  vm.func @from_int(%a: i64) -> (f64, f64, i64) {
    %s = vm.cast.si64.f64 %a : i64 -> f64
    %u = vm.cast.ui64.f64 %a : i64 -> f64
    %back = vm.cast.f64.si64 %s : f64 -> i64
    vm.return %s, %u, %back : f64, f64, i64
  }
  vm.export @bitcast_i64_to_f64
  vm.func @bitcast_i64_to_f64(%a: i64) -> f64 {
    %r = vm.bitcast.i64.f64 %a : i64 -> f64
    vm.return %r : f64
  }
  vm.export @bitcast_f64_to_i64
  vm.func @bitcast_f64_to_i64(%a: f64) -> i64 {
    %r = vm.bitcast.f64.i64 %a : f64 -> i64
    vm.return %r : i64
  }
  vm.export @trunc
  vm.func @trunc(%a: f64) -> f32 {
    %r = vm.trunc.f64.f32 %a : f64 -> f32
    vm.return %r : f32
  }
  vm.export @ext
  vm.func @ext(%a: f32) -> f64 {
    %r = vm.ext.f32.f64 %a : f32 -> f64
    vm.return %r : f64
  }
  // f64 -> f32 -> f64, with the bits of the result.
  vm.export @trunc_ext_bits
  vm.func @trunc_ext_bits(%a: f64) -> (f64, i64) {
    %t = vm.trunc.f64.f32 %a : f64 -> f32
    %e = vm.ext.f32.f64 %t : f32 -> f64
    %b = vm.bitcast.f64.i64 %e : f64 -> i64
    vm.return %e, %b : f64, i64
  }
}
