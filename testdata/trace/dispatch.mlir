// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-flow-trace-dispatch-tensors
// Every dispatch traces its inputs and outputs.
func.func @muladd(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %m = arith.mulf %a, %b : tensor<4xf32>
  %e = math.exp %m : tensor<4xf32>
  %s = arith.addf %e, %a : tensor<4xf32>
  return %s : tensor<4xf32>
}
