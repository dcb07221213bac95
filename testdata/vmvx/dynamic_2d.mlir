// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// Dynamic 2-D shapes: a fully dynamic matmul (?x? * ?x?), a transpose of a
// tensor<?x?xf32>, and a partially dynamic tensor<?x4xi32> row sum.
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
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
func.func @transpose(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %0 = linalg.transpose ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) permutation = [1, 0]
  return %0 : tensor<?x?xf32>
}
func.func @row_sum(%a: tensor<?x4xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x4xi32>
  %z = arith.constant 0 : i32
  %e = tensor.empty(%m) : tensor<?xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %r = linalg.reduce ins(%a : tensor<?x4xi32>) outs(%i : tensor<?xi32>) dimensions = [1]
    (%x: i32, %y: i32) { %s = arith.addi %x, %y : i32
      linalg.yield %s : i32 }
  return %r : tensor<?xi32>
}
