// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// linalg.matmul on small static shapes: 2x3*3x2 f32, 1x1, 3x5*5x2, and
// 4x4 i32; matmul accumulating into a caller-provided bias.
func.func @mm_2x3x2(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%i : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
func.func @mm_1x1(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x1xf32>, tensor<1x1xf32>) outs(%i : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
func.func @mm_3x5x2(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>) -> tensor<3x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x2xf32>) outs(%i : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}
func.func @mm_i32(%a: tensor<4x4xi32>, %b: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x4xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<4x4xi32>) -> tensor<4x4xi32>
  %r = linalg.matmul ins(%a, %b : tensor<4x4xi32>, tensor<4x4xi32>) outs(%i : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %r : tensor<4x4xi32>
}
func.func @mm_bias(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
