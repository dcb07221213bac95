// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// tensor.extract_slice (offsets, strides, rank-reducing) and
// tensor.insert_slice into a larger tensor.
func.func @middle(%a: tensor<4x5xi32>) -> tensor<2x3xi32> {
  %0 = tensor.extract_slice %a[1, 1] [2, 3] [1, 1] : tensor<4x5xi32> to tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
func.func @strided(%a: tensor<8xf32>) -> tensor<3xf32> {
  %0 = tensor.extract_slice %a[1] [3] [3] : tensor<8xf32> to tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @row(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = tensor.extract_slice %a[2, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @insert(%dst: tensor<4x4xf32>, %src: tensor<2x2xf32>) -> tensor<4x4xf32> {
  %0 = tensor.insert_slice %src into %dst[1, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
