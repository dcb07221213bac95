// arith and math ops on tensors (elementwise, lowered through linalg).
// Integer results by hand; float transcendental results from numpy
// (float32), compared with a tolerance.

func.func @integer_arith_i32() {
  %a = util.unfoldable_constant dense<[7, -7, 2147483647, 0]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[2, 2, 1, 5]> : tensor<4xi32>
  %add = arith.addi %a, %b : tensor<4xi32>
  check.expect_eq_const(%add, dense<[9, -5, -2147483648, 5]> : tensor<4xi32>) : tensor<4xi32>
  %mul = arith.muli %a, %b : tensor<4xi32>
  check.expect_eq_const(%mul, dense<[14, -14, 2147483647, 0]> : tensor<4xi32>) : tensor<4xi32>
  %div = arith.divsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%div, dense<[3, -3, 2147483647, 0]> : tensor<4xi32>) : tensor<4xi32>
  %rem = arith.remsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%rem, dense<[1, -1, 0, 0]> : tensor<4xi32>) : tensor<4xi32>
  %udiv = arith.divui %a, %b : tensor<4xi32>
  // 0xFFFFFFF9 / 2 = 2147483644
  check.expect_eq_const(%udiv, dense<[3, 2147483644, 2147483647, 0]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @bitwise_and_shifts() {
  %a = util.unfoldable_constant dense<[12, -16, 255, 1]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[10, 2, 4, 31]> : tensor<4xi32>
  %and = arith.andi %a, %b : tensor<4xi32>
  check.expect_eq_const(%and, dense<[8, 0, 4, 1]> : tensor<4xi32>) : tensor<4xi32>
  %xor = arith.xori %a, %b : tensor<4xi32>
  check.expect_eq_const(%xor, dense<[6, -14, 251, 30]> : tensor<4xi32>) : tensor<4xi32>
  %shl = arith.shli %a, %b : tensor<4xi32>
  check.expect_eq_const(%shl, dense<[12288, -64, 4080, -2147483648]> : tensor<4xi32>) : tensor<4xi32>
  %shr = arith.shrsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%shr, dense<[0, -4, 15, 0]> : tensor<4xi32>) : tensor<4xi32>
  %shru = arith.shrui %a, %b : tensor<4xi32>
  // 0xFFFFFFF0 >> 2 = 0x3FFFFFFC
  check.expect_eq_const(%shru, dense<[0, 1073741820, 15, 0]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @narrow_integers_wrap() {
  %a = util.unfoldable_constant dense<[100, -128, 127, 3]> : tensor<4xi8>
  %b = util.unfoldable_constant dense<[100, -1, 1, -5]> : tensor<4xi8>
  %add = arith.addi %a, %b : tensor<4xi8>
  check.expect_eq_const(%add, dense<[-56, 127, -128, -2]> : tensor<4xi8>) : tensor<4xi8>
  %c = util.unfoldable_constant dense<[300, -300]> : tensor<2xi16>
  %m = arith.muli %c, %c : tensor<2xi16>
  // 90000 mod 65536 = 24464
  check.expect_eq_const(%m, dense<[24464, 24464]> : tensor<2xi16>) : tensor<2xi16>
  %w = util.unfoldable_constant dense<[4294967296, -1]> : tensor<2xi64>
  %w2 = arith.addi %w, %w : tensor<2xi64>
  check.expect_eq_const(%w2, dense<[8589934592, -2]> : tensor<2xi64>) : tensor<2xi64>
  return
}

func.func @min_max_compare_select() {
  %a = util.unfoldable_constant dense<[1, -2, 3, -4]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[-1, 2, 3, -5]> : tensor<4xi32>
  %min = arith.minsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%min, dense<[-1, -2, 3, -5]> : tensor<4xi32>) : tensor<4xi32>
  %max = arith.maxsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%max, dense<[1, 2, 3, -4]> : tensor<4xi32>) : tensor<4xi32>
  %lt = arith.cmpi slt, %a, %b : tensor<4xi32>
  %sel = arith.select %lt, %a, %b : tensor<4xi1>, tensor<4xi32>
  check.expect_eq(%sel, %min) : tensor<4xi32>
  %eq = arith.cmpi eq, %a, %b : tensor<4xi32>
  %eq32 = arith.extui %eq : tensor<4xi1> to tensor<4xi32>
  check.expect_eq_const(%eq32, dense<[0, 0, 1, 0]> : tensor<4xi32>) : tensor<4xi32>
  %ones = arith.constant dense<1> : tensor<4xi32>
  %ge = arith.cmpi sge, %max, %min : tensor<4xi32>
  %ge32 = arith.extui %ge : tensor<4xi1> to tensor<4xi32>
  check.expect_all_true(%ge32) : tensor<4xi32>
  check.expect_eq(%ge32, %ones) : tensor<4xi32>
  return
}

func.func @float_arith_f32() {
  %a = util.unfoldable_constant dense<[1.5, -2.0, 0.1, 1.0e30]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 4.0, 0.2, 1.0e30]> : tensor<4xf32>
  %add = arith.addf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%add, dense<[2.0, 2.0, 0.3, 2.0e30]> : tensor<4xf32>, atol 1.0e-6, rtol 1.0e-6) : tensor<4xf32>
  %mul = arith.mulf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%mul, dense<[0.75, -8.0, 0.02, 0x7F800000]> : tensor<4xf32>, atol 1.0e-6, rtol 1.0e-6) : tensor<4xf32>
  %div = arith.divf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%div, dense<[3.0, -0.5, 0.5, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  %neg = arith.negf %a : tensor<4xf32>
  check.expect_almost_eq_const(%neg, dense<[-1.5, 2.0, -0.1, -1.0e30]> : tensor<4xf32>, atol 0.0, rtol 1.0e-7) : tensor<4xf32>
  return
}

func.func @float_to_int_conversions() {
  // Integral values only: VMVX rounds fractions to nearest (upstream's too);
  // truncation is checked in fptosi_truncates (llvm-cpu only).
  %a = util.unfoldable_constant dense<[2.0, -3.0, 255.0, 0.0]> : tensor<4xf32>
  %i = arith.fptosi %a : tensor<4xf32> to tensor<4xi32>
  check.expect_eq_const(%i, dense<[2, -3, 255, 0]> : tensor<4xi32>) : tensor<4xi32>
  %n = util.unfoldable_constant dense<[-3, 0, 16777217, 7]> : tensor<4xi32>
  %f = arith.sitofp %n : tensor<4xi32> to tensor<4xf32>
  // 16777217 is not representable in f32 and rounds to even: 16777216.
  check.expect_almost_eq_const(%f, dense<[-3.0, 0.0, 16777216.0, 7.0]> : tensor<4xf32>, atol 0.0, rtol 0.0) : tensor<4xf32>
  %s = arith.extsi %n : tensor<4xi32> to tensor<4xi64>
  check.expect_eq_const(%s, dense<[-3, 0, 16777217, 7]> : tensor<4xi64>) : tensor<4xi64>
  %t = arith.trunci %n : tensor<4xi32> to tensor<4xi8>
  // 16777217 = 0x1000001 -> 1; -3 -> 0xFD
  check.expect_eq_const(%t, dense<[-3, 0, 1, 7]> : tensor<4xi8>) : tensor<4xi8>
  return
}

func.func @math_exp_tanh() {
  %x = util.unfoldable_constant dense<[-1.0, 0.0, 0.5, 2.0]> : tensor<4xf32>
  %exp = math.exp %x : tensor<4xf32>
  check.expect_almost_eq_const(%exp, dense<[0.36787942, 1.0, 1.6487212, 7.3890557]> : tensor<4xf32>, atol 1.0e-5, rtol 1.0e-5) : tensor<4xf32>
  %tanh = math.tanh %x : tensor<4xf32>
  check.expect_almost_eq_const(%tanh, dense<[-0.7615942, 0.0, 0.4621172, 0.9640276]> : tensor<4xf32>, atol 1.0e-5, rtol 1.0e-5) : tensor<4xf32>
  return
}

func.func @math_log_sqrt_rsqrt() {
  %y = util.unfoldable_constant dense<[0.25, 1.0, 4.0, 10.0]> : tensor<4xf32>
  %log = math.log %y : tensor<4xf32>
  check.expect_almost_eq_const(%log, dense<[-1.3862944, 0.0, 1.3862944, 2.3025851]> : tensor<4xf32>, atol 1.0e-5, rtol 1.0e-5) : tensor<4xf32>
  %sqrt = math.sqrt %y : tensor<4xf32>
  check.expect_almost_eq_const(%sqrt, dense<[0.5, 1.0, 2.0, 3.1622777]> : tensor<4xf32>, atol 1.0e-6, rtol 1.0e-6) : tensor<4xf32>
  %rsqrt = math.rsqrt %y : tensor<4xf32>
  check.expect_almost_eq_const(%rsqrt, dense<[2.0, 1.0, 0.5, 0.31622776]> : tensor<4xf32>, atol 1.0e-5, rtol 1.0e-5) : tensor<4xf32>
  return
}

func.func @math_sin_cos_pow() {
  %z = util.unfoldable_constant dense<[0.0, 0.5, 1.0, 3.0]> : tensor<4xf32>
  %sin = math.sin %z : tensor<4xf32>
  check.expect_almost_eq_const(%sin, dense<[0.0, 0.47942555, 0.841471, 0.14112]> : tensor<4xf32>, atol 1.0e-5, rtol 1.0e-5) : tensor<4xf32>
  %cos = math.cos %z : tensor<4xf32>
  check.expect_almost_eq_const(%cos, dense<[1.0, 0.87758255, 0.5403023, -0.9899925]> : tensor<4xf32>, atol 1.0e-5, rtol 1.0e-5) : tensor<4xf32>
  %b = util.unfoldable_constant dense<[2.0, 3.0, 0.5, 4.0]> : tensor<4xf32>
  %e = util.unfoldable_constant dense<[3.0, 2.0, 2.0, 0.5]> : tensor<4xf32>
  %pow = math.powf %b, %e : tensor<4xf32>
  check.expect_almost_eq_const(%pow, dense<[8.0, 9.0, 0.25, 2.0]> : tensor<4xf32>, atol 1.0e-5, rtol 1.0e-5) : tensor<4xf32>
  return
}

func.func @math_rounding_and_abs() {
  %x = util.unfoldable_constant dense<[-2.5, -0.5, 0.5, 1.5]> : tensor<4xf32>
  %floor = math.floor %x : tensor<4xf32>
  check.expect_almost_eq_const(%floor, dense<[-3.0, -1.0, 0.0, 1.0]> : tensor<4xf32>, atol 0.0, rtol 0.0) : tensor<4xf32>
  %ceil = math.ceil %x : tensor<4xf32>
  check.expect_almost_eq_const(%ceil, dense<[-2.0, -0.0, 1.0, 2.0]> : tensor<4xf32>, atol 0.0, rtol 0.0) : tensor<4xf32>
  %abs = math.absf %x : tensor<4xf32>
  check.expect_almost_eq_const(%abs, dense<[2.5, 0.5, 0.5, 1.5]> : tensor<4xf32>, atol 0.0, rtol 0.0) : tensor<4xf32>
  %i = util.unfoldable_constant dense<[-7, 0, 7, -2147483647]> : tensor<4xi32>
  %iabs = math.absi %i : tensor<4xi32>
  check.expect_eq_const(%iabs, dense<[7, 0, 7, 2147483647]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @scalar_checks() {
  %a = util.unfoldable_constant 6 : i32
  %b = util.unfoldable_constant 7 : i32
  %p = arith.muli %a, %b : i32
  %c42 = arith.constant 42 : i32
  %eq = arith.cmpi eq, %p, %c42 : i32
  %eq32 = arith.extui %eq : i1 to i32
  check.expect_true(%eq32) : i32
  %ne = arith.cmpi ne, %p, %c42 : i32
  %ne32 = arith.extui %ne : i1 to i32
  check.expect_false(%ne32) : i32
  return
}
