// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// Sum reductions with linalg.reduce over one axis, the other axis, and all
// axes (to a rank-0 tensor), for f32 and i32; a 3-D reduction over the middle axis.
func.func @sum_axis0(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%i : tensor<3xf32>) dimensions = [0]
    (%a: f32, %b: f32) { %s = arith.addf %a, %b : f32
      linalg.yield %s : f32 }
  return %r : tensor<3xf32>
}
func.func @sum_axis1(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%i : tensor<2xf32>) dimensions = [1]
    (%a: f32, %b: f32) { %s = arith.addf %a, %b : f32
      linalg.yield %s : f32 }
  return %r : tensor<2xf32>
}
func.func @sum_all_i32(%x: tensor<3x4xi32>) -> tensor<i32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %r = linalg.reduce ins(%x : tensor<3x4xi32>) outs(%i : tensor<i32>) dimensions = [0, 1]
    (%a: i32, %b: i32) { %s = arith.addi %a, %b : i32
      linalg.yield %s : i32 }
  return %r : tensor<i32>
}
func.func @sum_mid(%x: tensor<2x3x2xf32>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.reduce ins(%x : tensor<2x3x2xf32>) outs(%i : tensor<2x2xf32>) dimensions = [1]
    (%a: f32, %b: f32) { %s = arith.addf %a, %b : f32
      linalg.yield %s : f32 }
  return %r : tensor<2x2xf32>
}
