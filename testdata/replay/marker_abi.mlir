// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// A kernel named as add.mlir's but with another ABI (one input, not two):
// substituting it must fail the replay's ABI check.
func.func @add(%a: tensor<4xf32>) -> tensor<4xf32> {
  %marker = arith.constant dense<7.0> : tensor<4xf32>
  %0 = arith.addf %a, %marker : tensor<4xf32>
  return %0 : tensor<4xf32>
}
