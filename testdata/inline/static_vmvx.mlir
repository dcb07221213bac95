// COMPILE: --iree-execution-model=inline-static --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx-inline
// inline-static (VMVX code inlined into the host module; imports hal_inline).
// Elementwise, a constant operand, a static and a dynamic matmul, a
// dynamic 1-D shape, two results, and a flow.tensor.trace (which needs
// hal_inline.buffer.wrap: UNIMPLEMENTED upstream in 3.13 too).
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @add_const(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[0.5, -1.0, 2.0, 100.0]> : tensor<4xf32>
  %0 = arith.addf %a, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%i : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
func.func @dyn_matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%i : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @square(%a: tensor<?xi32>) -> tensor<?xi32> {
  %0 = arith.muli %a, %a : tensor<?xi32>
  return %0 : tensor<?xi32>
}
func.func @two_results(%a: tensor<3xi32>, %b: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %0 = arith.addi %a, %b : tensor<3xi32>
  %1 = arith.subi %a, %b : tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}
func.func @traced(%a: tensor<4xf32>) -> tensor<4xf32> {
  flow.tensor.trace "input" = [%a : tensor<4xf32>]
  %0 = arith.mulf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
