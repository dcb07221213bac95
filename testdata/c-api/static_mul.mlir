// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-llvmcpu-link-embedded=false --iree-llvmcpu-link-static --iree-llvmcpu-static-library-output-path=../../target/c-api-static_mul.o
// `module.simple_mul` whose kernels are a static library linked into the
// program (executable format `static`, library `simple_mul_dispatch_0`).
// The C API test (crates/c-api/tests/c/static_library.c) supplies that
// library written by hand in C; the compiler's object is not used.
func.func @simple_mul(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>) -> tensor<4xf32> {
  %product = arith.mulf %lhs, %rhs : tensor<4xf32>
  return %product : tensor<4xf32>
}
