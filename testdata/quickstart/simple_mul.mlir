// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// The README's first example: two tensor<4xf32> multiplied elementwise on the
// CPU (llvm-cpu: an embedded ELF for a generic x86-64 CPU).
func.func @mul(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>) -> tensor<4xf32> {
  %product = arith.mulf %lhs, %rhs : tensor<4xf32>
  return %product : tensor<4xf32>
}
