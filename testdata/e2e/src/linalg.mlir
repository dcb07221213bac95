// linalg named and generic ops on static shapes. Expected values are worked
// out by hand (small integers, exact in f32).

func.func @matmul_f32() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%i : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[58.0, 64.0], [139.0, 154.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @matmul_i32_accumulates_into_init() {
  %a = util.unfoldable_constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %b = util.unfoldable_constant dense<[[5, 6], [-7, 8]]> : tensor<2x2xi32>
  %v = util.unfoldable_constant 100 : i32
  %e = tensor.empty() : tensor<2x2xi32>
  %init = linalg.fill ins(%v : i32) outs(%e : tensor<2x2xi32>) -> tensor<2x2xi32>
  %r = linalg.matmul ins(%a, %b : tensor<2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<2x2xi32>) -> tensor<2x2xi32>
  // [[5+14, 6-16], [15-28, 18+32]] + 100
  check.expect_eq_const(%r, dense<[[119, 90], [87, 150]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @matmul_17x9x5() {
  // a[i][k] = 1, b[k][j] = j: every row of the product is 9*j.
  %a = util.unfoldable_constant dense<1.0> : tensor<17x9xf32>
  %b = util.unfoldable_constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0]]> : tensor<9x5xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<17x5xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<17x5xf32>) -> tensor<17x5xf32>
  %r = linalg.matmul ins(%a, %b : tensor<17x9xf32>, tensor<9x5xf32>) outs(%i : tensor<17x5xf32>) -> tensor<17x5xf32>
  %row = tensor.extract_slice %r[16, 0] [1, 5] [1, 1] : tensor<17x5xf32> to tensor<5xf32>
  check.expect_almost_eq_const(%row, dense<[0.0, 9.0, 18.0, 27.0, 36.0]> : tensor<5xf32>) : tensor<5xf32>
  %col = tensor.extract_slice %r[0, 3] [17, 1] [1, 1] : tensor<17x5xf32> to tensor<17xf32>
  check.expect_almost_eq_const(%col, dense<27.0> : tensor<17xf32>) : tensor<17xf32>
  return
}

func.func @batch_matmul() {
  %a = util.unfoldable_constant dense<[[[1, 2]], [[3, 4]]]> : tensor<2x1x2xi32>
  %b = util.unfoldable_constant dense<[[[5], [6]], [[7], [8]]]> : tensor<2x2x1xi32>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x1x1xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<2x1x1xi32>) -> tensor<2x1x1xi32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x1x2xi32>, tensor<2x2x1xi32>) outs(%i : tensor<2x1x1xi32>) -> tensor<2x1x1xi32>
  check.expect_eq_const(%r, dense<[[[17]], [[53]]]> : tensor<2x1x1xi32>) : tensor<2x1x1xi32>
  return
}

func.func @conv_2d_nhwc_hwcf() {
  // 3x3 input 1..9, 2x2 filter [[1, 0], [0, -1]]: out = x[i][j] - x[i+1][j+1] = -4.
  %in = util.unfoldable_constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %f = util.unfoldable_constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) outs(%i : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  check.expect_almost_eq_const(%r, dense<-4.0> : tensor<1x2x2x1xf32>) : tensor<1x2x2x1xf32>
  return
}

func.func @depthwise_conv_strided() {
  // Two channels, 4x4 input; channel 0 is all 1, channel 1 is all 2;
  // a 2x2 all-ones filter with stride 2 sums 4 elements.
  %in = util.unfoldable_constant dense<[[[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]], [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]], [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]], [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]]]> : tensor<1x4x4x2xf32>
  %f = util.unfoldable_constant dense<1.0> : tensor<2x2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %f : tensor<1x4x4x2xf32>, tensor<2x2x2xf32>) outs(%i : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[[4.0, 8.0], [4.0, 8.0]], [[4.0, 8.0], [4.0, 8.0]]]]> : tensor<1x2x2x2xf32>) : tensor<1x2x2x2xf32>
  return
}

func.func @generic_elementwise_fma() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 0.25, -1.0, 2.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  // x*y + x
  check.expect_almost_eq_const(%r, dense<[1.5, 2.5, 0.0, 12.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @generic_row_reduction() {
  %a = util.unfoldable_constant dense<[[1, 2, 3, 4], [-1, -2, -3, -4], [10, 20, 30, 40]]> : tensor<3x4xi32>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<3xi32>) -> tensor<3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<3x4xi32>) outs(%i : tensor<3xi32>) {
  ^bb0(%x: i32, %acc: i32):
    %s = arith.addi %x, %acc : i32
    linalg.yield %s : i32
  } -> tensor<3xi32>
  check.expect_eq_const(%r, dense<[10, -10, 100]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @reduce_max_columns() {
  %a = util.unfoldable_constant dense<[[1.0, -5.0, 3.0], [4.0, -2.0, -6.0]]> : tensor<2x3xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.reduce ins(%a : tensor<2x3xf32>) outs(%i : tensor<3xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  check.expect_almost_eq_const(%r, dense<[4.0, -2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @transpose_3d() {
  %a = util.unfoldable_constant dense<[[[1, 2, 3], [4, 5, 6]]]> : tensor<1x2x3xi32>
  %e = tensor.empty() : tensor<3x1x2xi32>
  %r = linalg.transpose ins(%a : tensor<1x2x3xi32>) outs(%e : tensor<3x1x2xi32>) permutation = [2, 0, 1]
  check.expect_eq_const(%r, dense<[[[1, 4]], [[2, 5]], [[3, 6]]]> : tensor<3x1x2xi32>) : tensor<3x1x2xi32>
  return
}

func.func @broadcast_and_fill() {
  %a = util.unfoldable_constant dense<[7, 8]> : tensor<2xi16>
  %e = tensor.empty() : tensor<3x2xi16>
  %r = linalg.broadcast ins(%a : tensor<2xi16>) outs(%e : tensor<3x2xi16>) dimensions = [0]
  check.expect_eq_const(%r, dense<[[7, 8], [7, 8], [7, 8]]> : tensor<3x2xi16>) : tensor<3x2xi16>
  %v = util.unfoldable_constant 9 : i8
  %e8 = tensor.empty() : tensor<5xi8>
  %f = linalg.fill ins(%v : i8) outs(%e8 : tensor<5xi8>) -> tensor<5xi8>
  check.expect_eq_const(%f, dense<9> : tensor<5xi8>) : tensor<5xi8>
  return
}

func.func @pooling_max() {
  %in = util.unfoldable_constant dense<[[[[1.0], [5.0], [2.0]], [[3.0], [4.0], [9.0]], [[0.0], [-1.0], [6.0]]]]> : tensor<1x3x3x1xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %k : tensor<1x3x3x1xf32>, tensor<2x2xf32>) outs(%i : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  check.expect_almost_eq_const(%r, dense<[[[[5.0], [9.0]], [[4.0], [9.0]]]]> : tensor<1x2x2x1xf32>) : tensor<1x2x2x1xf32>
  return
}
