// TARGETS: llvm-cpu llvm-cpu-system
// f16 and bf16 tensors (VMVX has no f16 arithmetic), and fptosi of
// fractions (VMVX rounds them to nearest, upstream's runtime too). Nearest values worked
// out by hand: 1.9 in f16 is 1.900390625, in bf16 1.8984375.

func.func @f16_round_trip() {
  %a = util.unfoldable_constant dense<[1.9, -1.9, 255.0, 0.0]> : tensor<4xf32>
  %h = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  check.expect_almost_eq_const(%h, dense<[1.900390625, -1.900390625, 255.0, 0.0]> : tensor<4xf16>, atol 0.0, rtol 0.0) : tensor<4xf16>
  %back = arith.extf %h : tensor<4xf16> to tensor<4xf32>
  check.expect_almost_eq_const(%back, dense<[1.900390625, -1.900390625, 255.0, 0.0]> : tensor<4xf32>, atol 0.0, rtol 0.0) : tensor<4xf32>
  return
}

func.func @f16_arith_with_tolerance() {
  %a = util.unfoldable_constant dense<[0.1, 100.0, 2.0]> : tensor<3xf16>
  %b = util.unfoldable_constant dense<[0.2, 0.5, -3.0]> : tensor<3xf16>
  %sum = arith.addf %a, %b : tensor<3xf16>
  check.expect_almost_eq_const(%sum, dense<[0.3, 100.5, -1.0]> : tensor<3xf16>, atol 1.0e-3, rtol 1.0e-3) : tensor<3xf16>
  %prod = arith.mulf %a, %b : tensor<3xf16>
  check.expect_almost_eq_const(%prod, dense<[0.02, 50.0, -6.0]> : tensor<3xf16>, atol 1.0e-3, rtol 1.0e-3) : tensor<3xf16>
  return
}

func.func @bf16_round_trip() {
  %a = util.unfoldable_constant dense<[1.9, -256.0, 3.0]> : tensor<3xf32>
  %h = arith.truncf %a : tensor<3xf32> to tensor<3xbf16>
  check.expect_almost_eq_const(%h, dense<[1.8984375, -256.0, 3.0]> : tensor<3xbf16>, atol 0.0, rtol 0.0) : tensor<3xbf16>
  %back = arith.extf %h : tensor<3xbf16> to tensor<3xf32>
  check.expect_almost_eq_const(%back, dense<[1.8984375, -256.0, 3.0]> : tensor<3xf32>, atol 0.0, rtol 0.0) : tensor<3xf32>
  return
}

func.func @fptosi_truncates() {
  %a = util.unfoldable_constant dense<[1.9, -1.9, 0.5, -0.5]> : tensor<4xf32>
  %i = arith.fptosi %a : tensor<4xf32> to tensor<4xi32>
  check.expect_eq_const(%i, dense<[1, -1, 0, 0]> : tensor<4xi32>) : tensor<4xi32>
  return
}
