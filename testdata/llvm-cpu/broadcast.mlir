// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-input-demote-f64-to-f32=false
// f64 needs --iree-input-demote-f64-to-f32=false: iree-compile 3.13 demotes
// f64 to f32 by default (the ABI then takes and returns f32).
// Broadcasts: linalg.broadcast of a row and a column, a rank-0 tensor
// broadcast to 2x2 f64, and a bias add via linalg.generic with a broadcasting map.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @rows(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.broadcast ins(%a : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
  return %0 : tensor<2x3xf32>
}
func.func @cols(%a: tensor<2xi32>) -> tensor<2x3xi32> {
  %e = tensor.empty() : tensor<2x3xi32>
  %0 = linalg.broadcast ins(%a : tensor<2xi32>) outs(%e : tensor<2x3xi32>) dimensions = [1]
  return %0 : tensor<2x3xi32>
}
func.func @scalar(%a: tensor<f64>) -> tensor<2x2xf64> {
  %e = tensor.empty() : tensor<2x2xf64>
  %0 = linalg.broadcast ins(%a : tensor<f64>) outs(%e : tensor<2x2xf64>) dimensions = [0, 1]
  return %0 : tensor<2x2xf64>
}
func.func @bias_add(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
