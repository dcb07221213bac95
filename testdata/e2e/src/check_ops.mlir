// The check ops themselves, on every element type they take: passing
// expectations with and without tolerances, buffer views from
// hal.tensor.export, and the const forms. Expected values by hand.

func.func @expect_true_false() {
  %t = util.unfoldable_constant 1 : i32
  %f = util.unfoldable_constant 0 : i32
  %n = util.unfoldable_constant -5 : i32
  check.expect_true(%t) : i32
  check.expect_true(%n) : i32
  check.expect_false(%f) : i32
  return
}

func.func @expect_all_true_types() {
  %i8 = util.unfoldable_constant dense<[1, -1, 127]> : tensor<3xi8>
  check.expect_all_true(%i8) : tensor<3xi8>
  %i16 = util.unfoldable_constant dense<[256, -256]> : tensor<2xi16>
  check.expect_all_true(%i16) : tensor<2xi16>
  %i32 = util.unfoldable_constant dense<1> : tensor<2x2xi32>
  check.expect_all_true(%i32) : tensor<2x2xi32>
  %i64 = util.unfoldable_constant dense<[4294967296]> : tensor<1xi64>
  check.expect_all_true(%i64) : tensor<1xi64>
  return
}

func.func @expect_all_true_buffer_view() {
  %c0 = arith.constant 0 : index
  %device = hal.devices.get %c0 : !hal.device
  %t = util.unfoldable_constant dense<[3, 4]> : tensor<2xi32>
  %view = hal.tensor.export %t : tensor<2xi32> -> !hal.buffer_view
  check.expect_all_true<%device>(%view) : !hal.buffer_view
  return
}

func.func @expect_eq_types() {
  %i8 = util.unfoldable_constant dense<[-128, 0, 127]> : tensor<3xi8>
  check.expect_eq_const(%i8, dense<[-128, 0, 127]> : tensor<3xi8>) : tensor<3xi8>
  %i64 = util.unfoldable_constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  check.expect_eq_const(%i64, dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>) : tensor<2xi64>
  %f32 = util.unfoldable_constant dense<[[1.5, -0.0], [3.25, 1.0e-30]]> : tensor<2x2xf32>
  check.expect_eq_const(%f32, dense<[[1.5, -0.0], [3.25, 1.0e-30]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %scalar = util.unfoldable_constant dense<42> : tensor<i32>
  check.expect_eq_const(%scalar, dense<42> : tensor<i32>) : tensor<i32>
  return
}

func.func @expect_eq_two_tensors() {
  %a = util.unfoldable_constant dense<[1, 2, 3, 4, 5]> : tensor<5xi32>
  %b = util.unfoldable_constant dense<[1, 2, 3, 4, 5]> : tensor<5xi32>
  check.expect_eq(%a, %b) : tensor<5xi32>
  return
}

func.func @expect_almost_eq_default_tolerance() {
  // The default is atol 1e-4, rtol 0.
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = util.unfoldable_constant dense<[1.00009, 1.99991, 3.0]> : tensor<3xf32>
  check.expect_almost_eq(%a, %b) : tensor<3xf32>
  return
}

func.func @expect_almost_eq_rtol() {
  // |1000 - 1000.5| = 0.5 <= 1e-4 + 1e-3 * 1000.5
  %a = util.unfoldable_constant dense<[1000.0, -1.0e6]> : tensor<2xf32>
  check.expect_almost_eq_const(%a, dense<[1000.5, -1.0005e6]> : tensor<2xf32>, atol 1.0e-4, rtol 1.0e-3) : tensor<2xf32>
  return
}

func.func @expect_almost_eq_atol() {
  %a = util.unfoldable_constant dense<[0.0, 0.1]> : tensor<2xf32>
  check.expect_almost_eq_const(%a, dense<[0.04, 0.14]> : tensor<2xf32>, atol 5.0e-2) : tensor<2xf32>
  return
}

func.func @expect_almost_eq_nan_and_inf() {
  %a = util.unfoldable_constant dense<[0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<3xf32>
  check.expect_almost_eq_const(%a, dense<[0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<3xf32>, atol 0.0, rtol 0.0) : tensor<3xf32>
  return
}

func.func @several_expectations_in_one_test() {
  %a = util.unfoldable_constant dense<[2, 4]> : tensor<2xi32>
  %b = arith.addi %a, %a : tensor<2xi32>
  check.expect_eq_const(%b, dense<[4, 8]> : tensor<2xi32>) : tensor<2xi32>
  %c = arith.muli %b, %a : tensor<2xi32>
  check.expect_eq_const(%c, dense<[8, 32]> : tensor<2xi32>) : tensor<2xi32>
  check.expect_all_true(%c) : tensor<2xi32>
  return
}
