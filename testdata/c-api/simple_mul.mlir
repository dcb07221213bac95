// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// An elementwise multiply as the C API tests call it: `module.simple_mul`
// with two tensor<4xf32> (the shape of upstream's runtime demos).
func.func @simple_mul(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>) -> tensor<4xf32> {
  %product = arith.mulf %lhs, %rhs : tensor<4xf32>
  return %product : tensor<4xf32>
}
