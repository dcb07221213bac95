// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// linalg.batch_matmul: 2 batches of 2x3*3x2 f32, and 3 batches of 1x2*2x1 i32.
func.func @bmm(%a: tensor<2x2x3xf32>, %b: tensor<2x3x2xf32>) -> tensor<2x2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x2x3xf32>, tensor<2x3x2xf32>) outs(%i : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  return %r : tensor<2x2x2xf32>
}
func.func @bmm_i32(%a: tensor<3x1x2xi32>, %b: tensor<3x2x1xi32>) -> tensor<3x1x1xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3x1x1xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<3x1x1xi32>) -> tensor<3x1x1xi32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x1x2xi32>, tensor<3x2x1xi32>) outs(%i : tensor<3x1x1xi32>) -> tensor<3x1x1xi32>
  return %r : tensor<3x1x1xi32>
}
