// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// A linear layer whose weight (30x20) and bias (30) are parameters in
// scope "params": run(x) = x * weight^T + bias, for x of 128x20.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module @main {
  util.global private @weight = #flow.parameter.named<"params"::"weight"> : tensor<30x20xf32>
  util.global private @bias = #flow.parameter.named<"params"::"bias"> : tensor<30xf32>
  func.func @run(%x: tensor<128x20xf32>) -> tensor<128x30xf32> {
    %zero = arith.constant 0.0 : f32
    %w = util.global.load @weight : tensor<30x20xf32>
    %e0 = tensor.empty() : tensor<20x30xf32>
    %wt = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<30x20xf32>) outs(%e0 : tensor<20x30xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<20x30xf32>
    %e1 = tensor.empty() : tensor<128x30xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<128x30xf32>) -> tensor<128x30xf32>
    %mm = linalg.matmul ins(%x, %wt : tensor<128x20xf32>, tensor<20x30xf32>) outs(%init : tensor<128x30xf32>) -> tensor<128x30xf32>
    %b = util.global.load @bias : tensor<30xf32>
    %r = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<128x30xf32>, tensor<30xf32>) outs(%e1 : tensor<128x30xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %s = arith.addf %in, %in_0 : f32
      linalg.yield %s : f32
    } -> tensor<128x30xf32>
    return %r : tensor<128x30xf32>
  }
}
