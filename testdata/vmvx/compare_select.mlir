// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// Float comparisons (ordered/unordered with NaN) feeding arith.select, and
// a clamp built from cmpf+select; integer unsigned compares.
func.func @fcmp(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = arith.cmpf olt, %a, %b : tensor<4xf32>
  %1 = arith.cmpf ult, %a, %b : tensor<4xf32>
  %2 = arith.cmpf oeq, %a, %b : tensor<4xf32>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
func.func @clamp(%x: tensor<6xf32>, %lo: tensor<6xf32>, %hi: tensor<6xf32>) -> tensor<6xf32> {
  %c0 = arith.cmpf olt, %x, %lo : tensor<6xf32>
  %0 = arith.select %c0, %lo, %x : tensor<6xi1>, tensor<6xf32>
  %c1 = arith.cmpf ogt, %0, %hi : tensor<6xf32>
  %1 = arith.select %c1, %hi, %0 : tensor<6xi1>, tensor<6xf32>
  return %1 : tensor<6xf32>
}
func.func @ucmp_select(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %c = arith.cmpi ult, %a, %b : tensor<4xi32>
  %0 = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xi32>
  return %0 : tensor<4xi32>
}
