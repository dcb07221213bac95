// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Unsigned element-type views (ui8/ui16/ui32/ui64) and explicitly signed
// (si32) types in function signatures: pass-through, concat and transpose
// keep the ui* type, so results print unsigned; unsigned arithmetic on
// signless i8 (divui/remui/maxui) printed signed.
func.func @id_ui8(%a: tensor<4xui8>) -> tensor<4xui8> {
  return %a : tensor<4xui8>
}
func.func @concat_ui16(%a: tensor<2xui16>, %b: tensor<3xui16>) -> tensor<5xui16> {
  %0 = tensor.concat dim(0) %a, %b : (tensor<2xui16>, tensor<3xui16>) -> tensor<5xui16>
  return %0 : tensor<5xui16>
}
func.func @transpose_ui32(%a: tensor<2x3xui32>) -> tensor<3x2xui32> {
  %e = tensor.empty() : tensor<3x2xui32>
  %0 = linalg.transpose ins(%a : tensor<2x3xui32>) outs(%e : tensor<3x2xui32>) permutation = [1, 0]
  return %0 : tensor<3x2xui32>
}
func.func @reverse_ui64(%a: tensor<3xui64>) -> tensor<3xui64> {
  %0 = tensor.extract_slice %a[2] [1] [1] : tensor<3xui64> to tensor<1xui64>
  %1 = tensor.extract_slice %a[1] [1] [1] : tensor<3xui64> to tensor<1xui64>
  %2 = tensor.extract_slice %a[0] [1] [1] : tensor<3xui64> to tensor<1xui64>
  %r = tensor.concat dim(0) %0, %1, %2 : (tensor<1xui64>, tensor<1xui64>, tensor<1xui64>) -> tensor<3xui64>
  return %r : tensor<3xui64>
}
func.func @id_si32(%a: tensor<4xsi32>) -> tensor<4xsi32> {
  return %a : tensor<4xsi32>
}
func.func @udiv_i8(%a: tensor<4xi8>, %b: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) {
  %0 = arith.divui %a, %b : tensor<4xi8>
  %1 = arith.remui %a, %b : tensor<4xi8>
  %2 = arith.maxui %a, %b : tensor<4xi8>
  return %0, %1, %2 : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
}
