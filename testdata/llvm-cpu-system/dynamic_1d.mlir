// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-llvmcpu-link-embedded=false
// Dynamic shapes: tensor<?xf32> inputs of any length (0, 1, 3, 17, 1500):
// elementwise add, sum to a rank-0 tensor, the length as an index result,
// and a reverse via linalg.generic with tensor.dim.
#id = affine_map<(d0) -> (d0)>
#red = affine_map<(d0) -> ()>
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.addf %a, %b : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @sum(%a: tensor<?xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<?xf32>) outs(%i : tensor<f32>) dimensions = [0]
    (%x: f32, %y: f32) { %s = arith.addf %x, %y : f32
      linalg.yield %s : f32 }
  return %r : tensor<f32>
}
func.func @length(%a: tensor<?xi32>) -> index {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xi32>
  return %d : index
}
func.func @scale(%a: tensor<?xi32>, %k: tensor<i32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xi32>
  %e = tensor.empty(%d) : tensor<?xi32>
  %r = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel"]}
      ins(%a, %k : tensor<?xi32>, tensor<i32>) outs(%e : tensor<?xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %m = arith.muli %x, %y : i32
    linalg.yield %m : i32
  } -> tensor<?xi32>
  return %r : tensor<?xi32>
}
