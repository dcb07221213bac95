// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Reshapes: tensor.collapse_shape, tensor.expand_shape, and a reshape
// followed by arithmetic so the data really moves through a dispatch.
func.func @collapse(%a: tensor<2x3x2xi32>) -> tensor<6x2xi32> {
  %0 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<2x3x2xi32> into tensor<6x2xi32>
  return %0 : tensor<6x2xi32>
}
func.func @expand(%a: tensor<12xf32>) -> tensor<3x4xf32> {
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func @flatten_double(%a: tensor<2x2x2xf32>) -> tensor<8xf32> {
  %0 = tensor.collapse_shape %a [[0, 1, 2]] : tensor<2x2x2xf32> into tensor<8xf32>
  %1 = arith.addf %0, %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
