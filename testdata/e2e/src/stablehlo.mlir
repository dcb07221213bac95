// StableHLO ops (input dialect stablehlo). Expected values worked out by
// hand.

func.func @add_multiply() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, -1.0, 0.0, 10.0]> : tensor<4xf32>
  %s = stablehlo.add %a, %b : tensor<4xf32>
  %p = stablehlo.multiply %s, %a : tensor<4xf32>
  check.expect_almost_eq_const(%p, dense<[1.5, 2.0, 9.0, 56.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @dot() {
  %a = util.unfoldable_constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %b = util.unfoldable_constant dense<[[1, 0, -1], [2, 1, 0]]> : tensor<2x3xi32>
  %r = stablehlo.dot %a, %b : (tensor<3x2xi32>, tensor<2x3xi32>) -> tensor<3x3xi32>
  check.expect_eq_const(%r, dense<[[5, 2, -1], [11, 4, -3], [17, 6, -5]]> : tensor<3x3xi32>) : tensor<3x3xi32>
  return
}

func.func @dot_general_batched() {
  %a = util.unfoldable_constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %b = util.unfoldable_constant dense<[[[1.0], [1.0]], [[2.0], [-1.0]]]> : tensor<2x2x1xf32>
  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x1x2xf32>, tensor<2x2x1xf32>) -> tensor<2x1x1xf32>
  check.expect_almost_eq_const(%r, dense<[[[3.0]], [[2.0]]]> : tensor<2x1x1xf32>) : tensor<2x1x1xf32>
  return
}

func.func @reduce_sum() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_almost_eq_const(%r, dense<[6.0, 15.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}

func.func @broadcast_in_dim_and_iota() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<2xi32>) -> tensor<2x3xi32>
  %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %r = stablehlo.add %b, %i : tensor<2x3xi32>
  check.expect_eq_const(%r, dense<[[1, 2, 3], [2, 3, 4]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

func.func @concatenate_slice_reverse() {
  %a = util.unfoldable_constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = util.unfoldable_constant dense<[4, 5]> : tensor<2xi32>
  %c = stablehlo.concatenate %a, %b, dim = 0 : (tensor<3xi32>, tensor<2xi32>) -> tensor<5xi32>
  check.expect_eq_const(%c, dense<[1, 2, 3, 4, 5]> : tensor<5xi32>) : tensor<5xi32>
  %s = stablehlo.slice %c [1:5:2] : (tensor<5xi32>) -> tensor<2xi32>
  check.expect_eq_const(%s, dense<[2, 4]> : tensor<2xi32>) : tensor<2xi32>
  %r = stablehlo.reverse %c, dims = [0] : tensor<5xi32>
  check.expect_eq_const(%r, dense<[5, 4, 3, 2, 1]> : tensor<5xi32>) : tensor<5xi32>
  return
}

func.func @transpose_pad() {
  %a = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%t, dense<[[1, 3], [2, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %p = stablehlo.pad %t, %z, low = [1, 0], high = [0, 1], interior = [0, 0] : (tensor<2x2xi32>, tensor<i32>) -> tensor<3x3xi32>
  check.expect_eq_const(%p, dense<[[0, 0, 0], [1, 3, 0], [2, 4, 0]]> : tensor<3x3xi32>) : tensor<3x3xi32>
  return
}

func.func @compare_select_convert() {
  // Integral selected values: VMVX rounds fractions when converting.
  %a = util.unfoldable_constant dense<[2.0, -2.5, 3.0]> : tensor<3xf32>
  %b = util.unfoldable_constant dense<[1.0, 0.0, 3.0]> : tensor<3xf32>
  %gt = stablehlo.compare GT, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %m = stablehlo.select %gt, %a, %b : tensor<3xi1>, tensor<3xf32>
  check.expect_almost_eq_const(%m, dense<[2.0, 0.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
  %i = stablehlo.convert %m : (tensor<3xf32>) -> tensor<3xi32>
  check.expect_eq_const(%i, dense<[2, 0, 3]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @exponential_logistic() {
  %a = util.unfoldable_constant dense<[-2.0, 0.0, 1.0, 3.0]> : tensor<4xf32>
  %l = stablehlo.logistic %a : tensor<4xf32>
  // numpy: 1 / (1 + exp(-x)) in float32
  check.expect_almost_eq_const(%l, dense<[0.11920293, 0.5, 0.7310586, 0.95257413]> : tensor<4xf32>, atol 1.0e-5, rtol 1.0e-5) : tensor<4xf32>
  return
}
