// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Zero-element tensors: static 0-length vectors and a 2x0 matrix as
// arguments and results, and a concat with an empty operand.
func.func @neg0(%a: tensor<0xf32>) -> tensor<0xf32> {
  %0 = arith.negf %a : tensor<0xf32>
  return %0 : tensor<0xf32>
}
func.func @zero_cols(%a: tensor<2x0xi32>) -> tensor<0x2xi32> {
  %e = tensor.empty() : tensor<0x2xi32>
  %0 = linalg.transpose ins(%a : tensor<2x0xi32>) outs(%e : tensor<0x2xi32>) permutation = [1, 0]
  return %0 : tensor<0x2xi32>
}
func.func @cat_empty(%a: tensor<0xi8>, %b: tensor<3xi8>) -> tensor<3xi8> {
  %0 = tensor.concat dim(0) %a, %b : (tensor<0xi8>, tensor<3xi8>) -> tensor<3xi8>
  return %0 : tensor<3xi8>
}
