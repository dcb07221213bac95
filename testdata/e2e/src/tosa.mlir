// TOSA ops (input dialect tosa). Expected values worked out by hand.

func.func @add_mul_sub() {
  %a = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[10, -20, 30, -40]> : tensor<4xi32>
  %add = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  check.expect_eq_const(%add, dense<[11, -18, 33, -36]> : tensor<4xi32>) : tensor<4xi32>
  %sub = tosa.sub %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  check.expect_eq_const(%sub, dense<[-9, 22, -27, 44]> : tensor<4xi32>) : tensor<4xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %mul = tosa.mul %a, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  check.expect_eq_const(%mul, dense<[10, -40, 90, -160]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @broadcasting_add_f32() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[[0.5, -1.0, 2.0]]> : tensor<1x3xf32>
  %r = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%r, dense<[[1.5, 1.0, 5.0], [4.5, 4.0, 8.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @clamp_abs_negate() {
  %a = util.unfoldable_constant dense<[-5.0, -0.5, 0.5, 5.0]> : tensor<4xf32>
  %c = "tosa.clamp"(%a) <{min_val = -1.0 : f32, max_val = 1.0 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%c, dense<[-1.0, -0.5, 0.5, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  %abs = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%abs, dense<[5.0, 0.5, 0.5, 5.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @matmul() {
  %a = util.unfoldable_constant dense<[[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]]]> : tensor<1x2x3xf32>
  %b = util.unfoldable_constant dense<[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]> : tensor<1x3x2xf32>
  %za = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.matmul %a, %b, %za, %zb : (tensor<1x2x3xf32>, tensor<1x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[11.0, 14.0], [-2.0, -2.0]]]> : tensor<1x2x2xf32>) : tensor<1x2x2xf32>
  return
}

func.func @reduce_sum_and_max() {
  %a = util.unfoldable_constant dense<[[1, 5, -3], [4, -2, 6]]> : tensor<2x3xi32>
  %s = "tosa.reduce_sum"(%a) <{axis = 1 : i32}> : (tensor<2x3xi32>) -> tensor<2x1xi32>
  check.expect_eq_const(%s, dense<[[3], [8]]> : tensor<2x1xi32>) : tensor<2x1xi32>
  %m = "tosa.reduce_max"(%a) <{axis = 0 : i32}> : (tensor<2x3xi32>) -> tensor<1x3xi32>
  check.expect_eq_const(%m, dense<[[4, 5, 6]]> : tensor<1x3xi32>) : tensor<1x3xi32>
  return
}

func.func @transpose_reshape() {
  %a = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %t = "tosa.transpose"(%a) <{perms = array<i32: 1, 0>}> : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const(%t, dense<[[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  %shape = "tosa.const_shape"() <{values = dense<[6]> : tensor<1xindex>}> : () -> !tosa.shape<1>
  %r = tosa.reshape %t, %shape : (tensor<3x2xi32>, !tosa.shape<1>) -> tensor<6xi32>
  check.expect_eq_const(%r, dense<[1, 4, 2, 5, 3, 6]> : tensor<6xi32>) : tensor<6xi32>
  return
}

func.func @select_greater() {
  %a = util.unfoldable_constant dense<[1.0, 5.0, -2.0]> : tensor<3xf32>
  %b = util.unfoldable_constant dense<[2.0, 4.0, -2.0]> : tensor<3xf32>
  %gt = tosa.greater %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %r = tosa.select %gt, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const(%r, dense<[2.0, 5.0, -2.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @cast_f32_to_i8_saturates() {
  %a = util.unfoldable_constant dense<[300.0, -300.0, 7.0, -7.0]> : tensor<4xf32>
  %r = tosa.cast %a : (tensor<4xf32>) -> tensor<4xi8>
  check.expect_eq_const(%r, dense<[127, -128, 7, -7]> : tensor<4xi8>) : tensor<4xi8>
  return
}
