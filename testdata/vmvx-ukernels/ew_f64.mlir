// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx --iree-input-demote-f64-to-f32=false --iree-vmvx-enable-microkernels
// f64 needs --iree-input-demote-f64-to-f32=false: iree-compile 3.13 demotes
// f64 to f32 by default (the ABI then takes and returns f32).
// Elementwise arith on element type f64: add/sub/mul/div, neg, minimumf
// (NaN-propagating) and maxnumf, printing of fractions, large/small
// magnitudes, NaN and infinities.
func.func @add(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %0 = arith.addf %a, %b : tensor<4xf64>
  return %0 : tensor<4xf64>
}
func.func @arith4(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) {
  %0 = arith.addf %a, %b : tensor<2x3xf64>
  %1 = arith.subf %a, %b : tensor<2x3xf64>
  %2 = arith.mulf %a, %b : tensor<2x3xf64>
  %3 = arith.divf %a, %b : tensor<2x3xf64>
  return %0, %1, %2, %3 : tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>
}
func.func @neg_minmax(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = arith.negf %a : tensor<4xf64>
  %1 = arith.minimumf %a, %b : tensor<4xf64>
  %2 = arith.maxnumf %a, %b : tensor<4xf64>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}
