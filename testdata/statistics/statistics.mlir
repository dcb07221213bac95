// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// --print_statistics figures: inputs, queue allocations (counted on
// local-sync, pooled on local-task) and the host copies of results.
func.func @noout(%a: tensor<4xf32>) {
  return
}
func.func @onlyout() -> tensor<4xf32> {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func @neg(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = arith.negf %a : tensor<4xf32>
  return %b : tensor<4xf32>
}
func.func @two(%a: tensor<3xf16>) -> (tensor<3xf16>, tensor<3xf32>) {
  %b = arith.addf %a, %a : tensor<3xf16>
  %c = arith.extf %a : tensor<3xf16> to tensor<3xf32>
  return %b, %c : tensor<3xf16>, tensor<3xf32>
}
