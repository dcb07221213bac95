// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx --iree-vmvx-enable-microkernels
// A 64x64x64 f32 matmul, plus a variant that adds an iota-like matrix
// produced by linalg.generic (so the output is not uniform). Output of 4096
// elements exercises the default 1024-element print budget.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @mm64(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%i : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
func.func @mm64_iota(%b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e0 = tensor.empty() : tensor<64x64xf32>
  %a = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%e0 : tensor<64x64xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %s = arith.addi %i0, %i1 : index
    %c = arith.index_cast %s : index to i32
    %f = arith.sitofp %c : i32 to f32
    linalg.yield %f : f32
  } -> tensor<64x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%i : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
