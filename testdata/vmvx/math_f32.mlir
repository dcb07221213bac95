// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// math dialect on f32 tensors: exp, log, sqrt, tanh, abs, floor, ceil,
// powf, rsqrt, and a softmax built from linalg.generic reductions.
func.func @unary(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = math.exp %a : tensor<4xf32>
  %1 = math.tanh %a : tensor<4xf32>
  %2 = math.absf %a : tensor<4xf32>
  %3 = math.floor %a : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func @positive(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = math.log %a : tensor<4xf32>
  %1 = math.sqrt %a : tensor<4xf32>
  %2 = math.rsqrt %a : tensor<4xf32>
  %3 = math.ceil %a : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func @pow(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.powf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @softmax(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
