// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// fp8 element types (f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ): extend to
// f32, compute, truncate back; fp8 results print with %G.
func.func @e4m3fn(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf32>) -> (tensor<4xf8E4M3FN>, tensor<4xf32>) {
  %0 = arith.extf %a : tensor<4xf8E4M3FN> to tensor<4xf32>
  %1 = arith.addf %0, %b : tensor<4xf32>
  %2 = arith.truncf %1 : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %2, %1 : tensor<4xf8E4M3FN>, tensor<4xf32>
}
func.func @e5m2(%a: tensor<4xf8E5M2>, %b: tensor<4xf32>) -> (tensor<4xf8E5M2>, tensor<4xf32>) {
  %0 = arith.extf %a : tensor<4xf8E5M2> to tensor<4xf32>
  %1 = arith.mulf %0, %b : tensor<4xf32>
  %2 = arith.truncf %1 : tensor<4xf32> to tensor<4xf8E5M2>
  return %2, %1 : tensor<4xf8E5M2>, tensor<4xf32>
}
func.func @e4m3fnuz(%a: tensor<4xf8E4M3FNUZ>) -> tensor<4xf32> {
  %0 = arith.extf %a : tensor<4xf8E4M3FNUZ> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @e5m2fnuz(%a: tensor<4xf32>) -> tensor<4xf8E5M2FNUZ> {
  %0 = arith.truncf %a : tensor<4xf32> to tensor<4xf8E5M2FNUZ>
  return %0 : tensor<4xf8E5M2FNUZ>
}
