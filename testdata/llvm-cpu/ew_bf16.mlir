// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Elementwise arith on element type bf16: add/sub/mul/div, neg, minimumf
// (NaN-propagating) and maxnumf, printing of fractions, large/small
// magnitudes, NaN and infinities.
func.func @add(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = arith.addf %a, %b : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
func.func @arith4(%a: tensor<2x3xbf16>, %b: tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>) {
  %0 = arith.addf %a, %b : tensor<2x3xbf16>
  %1 = arith.subf %a, %b : tensor<2x3xbf16>
  %2 = arith.mulf %a, %b : tensor<2x3xbf16>
  %3 = arith.divf %a, %b : tensor<2x3xbf16>
  return %0, %1, %2, %3 : tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>
}
func.func @neg_minmax(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) {
  %0 = arith.negf %a : tensor<4xbf16>
  %1 = arith.minimumf %a, %b : tensor<4xbf16>
  %2 = arith.maxnumf %a, %b : tensor<4xbf16>
  return %0, %1, %2 : tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>
}
