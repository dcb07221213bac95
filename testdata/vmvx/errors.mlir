// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// A small module used by the error cases: wrong input shapes and dtypes,
// missing functions, too few/many inputs, unparsable inputs, no --function
// with several exports, and unknown devices.
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @mm(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%i : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
func.func @takes_scalar(%k: i32, %x: tensor<2xi32>) -> tensor<2xi32> {
  %b_e = tensor.empty() : tensor<2xi32>
  %b = linalg.fill ins(%k : i32) outs(%b_e : tensor<2xi32>) -> tensor<2xi32>
  %r = arith.addi %x, %b : tensor<2xi32>
  return %r : tensor<2xi32>
}
