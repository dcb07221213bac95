// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// Elementwise arith on element type f32: add/sub/mul/div, neg, minimumf
// (NaN-propagating) and maxnumf, printing of fractions, large/small
// magnitudes, NaN and infinities.
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @arith4(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = arith.addf %a, %b : tensor<2x3xf32>
  %1 = arith.subf %a, %b : tensor<2x3xf32>
  %2 = arith.mulf %a, %b : tensor<2x3xf32>
  %3 = arith.divf %a, %b : tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @neg_minmax(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = arith.negf %a : tensor<4xf32>
  %1 = arith.minimumf %a, %b : tensor<4xf32>
  %2 = arith.maxnumf %a, %b : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
