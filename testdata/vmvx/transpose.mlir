// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// linalg.transpose: 2-D f32, 3-D i16 with permutation [2, 0, 1], 4-D NCHW->NHWC f32.
func.func @t2d(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %0 = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %0 : tensor<3x2xf32>
}
func.func @t3d(%a: tensor<2x3x4xi16>) -> tensor<4x2x3xi16> {
  %e = tensor.empty() : tensor<4x2x3xi16>
  %0 = linalg.transpose ins(%a : tensor<2x3x4xi16>) outs(%e : tensor<4x2x3xi16>) permutation = [2, 0, 1]
  return %0 : tensor<4x2x3xi16>
}
func.func @nchw_nhwc(%a: tensor<1x2x2x3xf32>) -> tensor<1x2x3x2xf32> {
  %e = tensor.empty() : tensor<1x2x3x2xf32>
  %0 = linalg.transpose ins(%a : tensor<1x2x2x3xf32>) outs(%e : tensor<1x2x3x2xf32>) permutation = [0, 2, 3, 1]
  return %0 : tensor<1x2x3x2xf32>
}
