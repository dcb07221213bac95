// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-llvmcpu-link-embedded=false
// Elementwise arith on element type f16: add/sub/mul/div, neg, minimumf
// (NaN-propagating) and maximumf (not maxnumf: iree-compile 3.13 lowers f16
// maxnumf to a call to fmaxf that the embedded-ELF link cannot resolve),
// printing of fractions, large/small magnitudes, NaN and infinities.
func.func @add(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = arith.addf %a, %b : tensor<4xf16>
  return %0 : tensor<4xf16>
}
func.func @arith4(%a: tensor<2x3xf16>, %b: tensor<2x3xf16>) -> (tensor<2x3xf16>, tensor<2x3xf16>, tensor<2x3xf16>, tensor<2x3xf16>) {
  %0 = arith.addf %a, %b : tensor<2x3xf16>
  %1 = arith.subf %a, %b : tensor<2x3xf16>
  %2 = arith.mulf %a, %b : tensor<2x3xf16>
  %3 = arith.divf %a, %b : tensor<2x3xf16>
  return %0, %1, %2, %3 : tensor<2x3xf16>, tensor<2x3xf16>, tensor<2x3xf16>, tensor<2x3xf16>
}
func.func @neg_minmax(%a: tensor<4xf16>, %b: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) {
  %0 = arith.negf %a : tensor<4xf16>
  %1 = arith.minimumf %a, %b : tensor<4xf16>
  %2 = arith.maximumf %a, %b : tensor<4xf16>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>
}
