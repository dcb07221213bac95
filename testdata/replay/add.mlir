// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// One elementwise add: its executable has a single kernel,
// add_dispatch_0_elementwise_4_f32 (two 4xf32 inputs, one output), the one
// marker_add.mlir and marker_abi.mlir stand in for in
// --replay_executable_substitution tests.
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
