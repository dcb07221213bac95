// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// i1 (bool) tensors: logic ops, comparisons producing i1 results, select
// with an i1 condition, and i1 <-> i32 conversions. i1 prints as hex bytes.
func.func @logic(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = arith.andi %a, %b : tensor<4xi1>
  %1 = arith.ori %a, %b : tensor<4xi1>
  %2 = arith.xori %a, %b : tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
func.func @cmp(%a: tensor<2x3xi32>, %b: tensor<2x3xi32>) -> (tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = arith.cmpi slt, %a, %b : tensor<2x3xi32>
  %1 = arith.cmpi eq, %a, %b : tensor<2x3xi32>
  return %0, %1 : tensor<2x3xi1>, tensor<2x3xi1>
}
func.func @select(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @convert(%a: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = arith.extui %a : tensor<4xi1> to tensor<4xi32>
  %1 = arith.extsi %a : tensor<4xi1> to tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}
