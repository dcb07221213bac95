// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Imports `sample.accumulate` with a signature the sample module does not
// export ((i64) -> i64 instead of (i32) -> i32): loading it after
// libsample_module.so must fail naming the function. No cases (see
// sample_user.mlir).

func.func private @sample.accumulate(i64) -> i64

func.func @accumulate(%a: i64) -> i64 {
  %0 = call @sample.accumulate(%a) : (i64) -> i64
  return %0 : i64
}
