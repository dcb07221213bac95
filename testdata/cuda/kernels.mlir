// COMPILE: --iree-hal-target-device=cuda --iree-cuda-target=sm_80
// GPU kernels for the cuda-nvptx-fb executable tests: an elementwise
// multiply (two read-only bindings and one written), a dynamic-shape add
// (push constants carry the sizes) and a matmul with a reduction (shared
// memory on most targets).
func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @dyn_add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.addf %a, %b : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x64xf32>
  %fill = linalg.fill ins(%cst : f32) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%fill : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
