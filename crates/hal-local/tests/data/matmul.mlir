func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
