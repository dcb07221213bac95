// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// Elementwise arith on tensor<?xi32> element type i32 (signless, printed signed):
// add/sub/mul with wraparound, signed/unsigned min/max, shifts, bitwise ops,
// signed/unsigned division by non-zero divisors.
func.func @add(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arith.addi %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}
func.func @sub_mul(%a: tensor<2x3xi32>, %b: tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>) {
  %0 = arith.subi %a, %b : tensor<2x3xi32>
  %1 = arith.muli %a, %b : tensor<2x3xi32>
  return %0, %1 : tensor<2x3xi32>, tensor<2x3xi32>
}
func.func @minmax(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = arith.minsi %a, %b : tensor<4xi32>
  %1 = arith.maxsi %a, %b : tensor<4xi32>
  %2 = arith.minui %a, %b : tensor<4xi32>
  %3 = arith.maxui %a, %b : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
func.func @bits(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = arith.andi %a, %b : tensor<4xi32>
  %1 = arith.ori %a, %b : tensor<4xi32>
  %2 = arith.xori %a, %b : tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
func.func @shifts(%a: tensor<4xi32>, %s: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = arith.shli %a, %s : tensor<4xi32>
  %1 = arith.shrsi %a, %s : tensor<4xi32>
  %2 = arith.shrui %a, %s : tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
func.func @div(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = arith.divsi %a, %b : tensor<4xi32>
  %1 = arith.remsi %a, %b : tensor<4xi32>
  %2 = arith.divui %a, %b : tensor<4xi32>
  %3 = arith.remui %a, %b : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
