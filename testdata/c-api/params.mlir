// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// A global loaded from parameter "model"::"w_i32" (testdata/params/ints.irpa):
// the C API test of the io parameters API (crates/c-api/tests/c/parameters.c)
// provides it through a parameter index and the io_parameters module.
util.global private @w_i32 = #flow.parameter.named<"model"::"w_i32"> : tensor<2x3xi32>

func.func @scaled(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %w = util.global.load @w_i32 : tensor<2x3xi32>
  %r = arith.muli %x, %w : tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
