// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// An llvm-cpu module run without --device: the default device (local-task).
func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.mulf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
