// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// `module.simple_mul` that also traces its product (`hal.buffer_view.trace`
// with key "product"): the C API test that builds its context by hand
// (crates/c-api/tests/c/embedding.c) sees the trace through its debug sink.
func.func @simple_mul(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>) -> tensor<4xf32> {
  %product = arith.mulf %lhs, %rhs : tensor<4xf32>
  flow.tensor.trace "product" = [%product : tensor<4xf32>]
  return %product : tensor<4xf32>
}
