// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-llvmcpu-link-embedded=false
// Globals set by a util.initializer that runs a dispatch (an iota-like
// generic), and a global initialized from a constant then transformed;
// functions read them, one combines a global with an input.
#id = affine_map<(d0) -> (d0)>
util.global private @table : tensor<8xi32>
util.global private mutable @scale : tensor<f32>
util.initializer {
  %e = tensor.empty() : tensor<8xi32>
  %t = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<8xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %sq = arith.muli %c, %c : i32
    linalg.yield %sq : i32
  } -> tensor<8xi32>
  util.global.store %t, @table : tensor<8xi32>
  %s = arith.constant dense<2.5> : tensor<f32>
  util.global.store %s, @scale : tensor<f32>
  util.return
}
func.func @get_table() -> tensor<8xi32> {
  %t = util.global.load @table : tensor<8xi32>
  return %t : tensor<8xi32>
}
func.func @add_table(%x: tensor<8xi32>) -> tensor<8xi32> {
  %t = util.global.load @table : tensor<8xi32>
  %r = arith.addi %t, %x : tensor<8xi32>
  return %r : tensor<8xi32>
}
func.func @scaled(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %s = util.global.load @scale : tensor<f32>
  %v = tensor.extract %s[] : tensor<f32>
  %b_e = tensor.empty() : tensor<3xf32>
  %b = linalg.fill ins(%v : f32) outs(%b_e : tensor<3xf32>) -> tensor<3xf32>
  %r = arith.mulf %x, %b : tensor<3xf32>
  %s2 = arith.addf %s, %s : tensor<f32>
  util.global.store %s2, @scale : tensor<f32>
  %n = util.global.load @scale : tensor<f32>
  return %r, %n : tensor<3xf32>, tensor<f32>
}
