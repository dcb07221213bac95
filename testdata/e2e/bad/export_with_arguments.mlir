// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// An export with an argument is not a test: the run fails before any test.
func.func @takes_a_tensor(%a: tensor<2xi32>) {
  check.expect_all_true(%a) : tensor<2xi32>
  return
}
