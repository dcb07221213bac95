// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// tensor.pad with constant padding values: symmetric 1-D, asymmetric 2-D, and
// a pad value taken from a rank-0 tensor argument.
func.func @pad1d(%a: tensor<3xf32>) -> tensor<6xf32> {
  %c = arith.constant -1.0 : f32
  %0 = tensor.pad %a low[1] high[2] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<3xf32> to tensor<6xf32>
  return %0 : tensor<6xf32>
}
func.func @pad2d(%a: tensor<2x2xi32>) -> tensor<3x5xi32> {
  %c = arith.constant 0 : i32
  %0 = tensor.pad %a low[0, 1] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : i32
  } : tensor<2x2xi32> to tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}
func.func @pad_value(%a: tensor<2xf32>, %v: tensor<f32>) -> tensor<4xf32> {
  %c = tensor.extract %v[] : tensor<f32>
  %0 = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<2xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
