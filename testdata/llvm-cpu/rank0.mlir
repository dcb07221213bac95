// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Rank-0 tensors (tensor<f32>, tensor<i64>, tensor<i1>, tensor<f16>) as
// arguments and results; printed without dims ().
func.func @addf(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = arith.addf %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @muli64(%a: tensor<i64>, %b: tensor<i64>) -> tensor<i64> {
  %0 = arith.muli %a, %b : tensor<i64>
  return %0 : tensor<i64>
}
func.func @lt(%a: tensor<f16>, %b: tensor<f16>) -> tensor<i1> {
  %0 = arith.cmpf olt, %a, %b : tensor<f16>
  return %0 : tensor<i1>
}
