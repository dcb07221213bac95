// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// Deliberately wrong expectations between passing tests: each failure is
// reported with the mismatch and the remaining tests (and the remaining
// checks of a failing test) still run.

func.func @passes_before() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  return
}

func.func @wrong_sum() {
  %a = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[1, 1, 1, 1]> : tensor<4xi32>
  %s = arith.addi %a, %b : tensor<4xi32>
  // Deliberately wrong at index 2: 3 + 1 is 4, not 5.
  check.expect_eq_const(%s, dense<[2, 3, 5, 5]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @wrong_tolerance() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  // Deliberately too far at index 1 for atol 1e-4.
  check.expect_almost_eq_const(%a, dense<[1.0, 2.5, 3.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @two_failures() {
  %f = util.unfoldable_constant 0 : i32
  check.expect_true(%f) : i32
  %a = util.unfoldable_constant dense<[7]> : tensor<1xi32>
  check.expect_eq_const(%a, dense<[8]> : tensor<1xi32>) : tensor<1xi32>
  return
}

func.func @passes_after() {
  %t = util.unfoldable_constant 1 : i32
  check.expect_true(%t) : i32
  return
}
