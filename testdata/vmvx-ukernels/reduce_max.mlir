// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx --iree-vmvx-enable-microkernels
// Max/min reductions with linalg.reduce: f32 maximumf over each axis
// (with -inf init), i32 signed max, i8 signed min over all.
func.func @max_axis0(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  %z = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<3x4xf32>) outs(%i : tensor<4xf32>) dimensions = [0]
    (%a: f32, %b: f32) { %s = arith.maximumf %a, %b : f32
      linalg.yield %s : f32 }
  return %r : tensor<4xf32>
}
func.func @max_axis1(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %z = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.reduce ins(%x : tensor<3x4xf32>) outs(%i : tensor<3xf32>) dimensions = [1]
    (%a: f32, %b: f32) { %s = arith.maximumf %a, %b : f32
      linalg.yield %s : f32 }
  return %r : tensor<3xf32>
}
func.func @max_i32(%x: tensor<2x5xi32>) -> tensor<2xi32> {
  %z = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<2xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %r = linalg.reduce ins(%x : tensor<2x5xi32>) outs(%i : tensor<2xi32>) dimensions = [1]
    (%a: i32, %b: i32) { %s = arith.maxsi %a, %b : i32
      linalg.yield %s : i32 }
  return %r : tensor<2xi32>
}
func.func @min_all_i8(%x: tensor<8xi8>) -> tensor<i8> {
  %z = arith.constant 127 : i8
  %e = tensor.empty() : tensor<i8>
  %i = linalg.fill ins(%z : i8) outs(%e : tensor<i8>) -> tensor<i8>
  %r = linalg.reduce ins(%x : tensor<8xi8>) outs(%i : tensor<i8>) dimensions = [0]
    (%a: i8, %b: i8) { %s = arith.minsi %a, %b : i8
      linalg.yield %s : i8 }
  return %r : tensor<i8>
}
