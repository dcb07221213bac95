// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// A conv + softmax pipeline for the profiling tests (docs/observability.md):
// linalg.conv_2d_nhwc_hwcf over a 1x16x16x4 input with a 3x3x4x8 filter,
// then a softmax over the 8 output channels written with linalg.generic
// (max, exp(x - max), sum, divide). Several dispatches per call.
#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#red4 = affine_map<(n, h, w, c) -> (n, h, w)>
func.func @conv_softmax(%x: tensor<1x16x16x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x14x14x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x14x14x8xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x8xf32>) -> tensor<1x14x14x8xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x16x16x4xf32>, tensor<3x3x4x8xf32>) outs(%i : tensor<1x14x14x8xf32>) -> tensor<1x14x14x8xf32>
  %re = tensor.empty() : tensor<1x14x14xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%re : tensor<1x14x14xf32>) -> tensor<1x14x14xf32>
  %max = linalg.generic {indexing_maps = [#id4, #red4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
       ins(%conv : tensor<1x14x14x8xf32>) outs(%mi : tensor<1x14x14xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x14x14xf32>
  %exp = linalg.generic {indexing_maps = [#id4, #red4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
       ins(%conv, %max : tensor<1x14x14x8xf32>, tensor<1x14x14xf32>) outs(%e : tensor<1x14x14x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %x2 = math.exp %d : f32
    linalg.yield %x2 : f32
  } -> tensor<1x14x14x8xf32>
  %si = linalg.fill ins(%zero : f32) outs(%re : tensor<1x14x14xf32>) -> tensor<1x14x14xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #red4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
       ins(%exp : tensor<1x14x14x8xf32>) outs(%si : tensor<1x14x14xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x14x14xf32>
  %out = linalg.generic {indexing_maps = [#id4, #red4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
       ins(%exp, %sum : tensor<1x14x14x8xf32>, tensor<1x14x14xf32>) outs(%e : tensor<1x14x14x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x14x14x8xf32>
  return %out : tensor<1x14x14x8xf32>
}
