// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// tensor.concat along dim 0 and dim 1, with three operands of bf16.
func.func @dim0(%a: tensor<1x3xf32>, %b: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = tensor.concat dim(0) %a, %b : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
func.func @dim1(%a: tensor<2x1xi64>, %b: tensor<2x2xi64>) -> tensor<2x3xi64> {
  %0 = tensor.concat dim(1) %a, %b : (tensor<2x1xi64>, tensor<2x2xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}
func.func @three(%a: tensor<2xbf16>, %b: tensor<1xbf16>, %c: tensor<3xbf16>) -> tensor<6xbf16> {
  %0 = tensor.concat dim(0) %a, %b, %c : (tensor<2xbf16>, tensor<1xbf16>, tensor<3xbf16>) -> tensor<6xbf16>
  return %0 : tensor<6xbf16>
}
