// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx --iree-vmvx-enable-microkernels
// Elementwise unary ops lowered to vmvx.{abs,ceil,floor,exp,log,neg,rsqrt}.2d.f32
// and vmvx.ctlz.2d.i32 calls.
func.func @unary_ops(%a: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %0 = math.absf %a : tensor<3x5xf32>
  %1 = math.ceil %a : tensor<3x5xf32>
  %2 = math.floor %a : tensor<3x5xf32>
  %3 = math.exp %a : tensor<3x5xf32>
  %4 = math.log %a : tensor<3x5xf32>
  %5 = arith.negf %a : tensor<3x5xf32>
  %6 = math.rsqrt %a : tensor<3x5xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}
func.func @ctlz(%a: tensor<3x5xi32>) -> tensor<3x5xi32> {
  %0 = math.ctlz %a : tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}
