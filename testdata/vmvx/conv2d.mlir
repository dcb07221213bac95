// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// linalg.conv_2d_nhwc_hwcf: 1x4x4x1 input with a 2x2x1x1 filter (stride 1),
// a 1x5x5x2 input with a 3x3x2x3 filter, and a stride-2 variant.
func.func @conv_4x4(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x1xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) outs(%i : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  return %r : tensor<1x3x3x1xf32>
}
func.func @conv_5x5_c2_f3(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x3xf32>) -> tensor<1x3x3x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x5x5x2xf32>, tensor<3x3x2x3xf32>) outs(%i : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %r : tensor<1x3x3x3xf32>
}
func.func @conv_stride2(%x: tensor<1x5x5x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %w : tensor<1x5x5x1xf32>, tensor<3x3x1x1xf32>) outs(%i : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return %r : tensor<1x2x2x1xf32>
}
