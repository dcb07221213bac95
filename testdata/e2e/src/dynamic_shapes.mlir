// Dynamic shapes: tensors whose extents the compiler cannot see
// (flow.tensor.dynamic_constant), through elementwise ops, reductions,
// matmul and concatenation. Expected values worked out by hand.

func.func @elementwise_dynamic_1d() {
  %a = flow.tensor.dynamic_constant dense<[1, 2, 3, 4, 5]> : tensor<5xi32> -> tensor<?xi32>
  %b = flow.tensor.dynamic_constant dense<[10, 20, 30, 40, 50]> : tensor<5xi32> -> tensor<?xi32>
  %s = arith.addi %a, %b : tensor<?xi32>
  %static = tensor.cast %s : tensor<?xi32> to tensor<5xi32>
  check.expect_eq_const(%static, dense<[11, 22, 33, 44, 55]> : tensor<5xi32>) : tensor<5xi32>
  check.expect_eq(%s, %s) : tensor<?xi32>
  return
}

func.func @dim_of_dynamic_tensor() {
  %a = flow.tensor.dynamic_constant dense<1.0> : tensor<3x7xf32> -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %n = arith.muli %d0, %d1 : index
  %n32 = arith.index_cast %n : index to i32
  %c21 = arith.constant 21 : i32
  %eq = arith.cmpi eq, %n32, %c21 : i32
  %eq32 = arith.extui %eq : i1 to i32
  check.expect_true(%eq32) : i32
  return
}

func.func @reduce_dynamic_rows() {
  %a = flow.tensor.dynamic_constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [-1, -1, -1, -1]]> : tensor<3x4xi32> -> tensor<?x4xi32>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x4xi32>
  %z = arith.constant 0 : i32
  %e = tensor.empty(%m) : tensor<?xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %r = linalg.reduce ins(%a : tensor<?x4xi32>) outs(%i : tensor<?xi32>) dimensions = [1]
    (%x: i32, %acc: i32) {
      %s = arith.addi %x, %acc : i32
      linalg.yield %s : i32
    }
  %static = tensor.cast %r : tensor<?xi32> to tensor<3xi32>
  check.expect_eq_const(%static, dense<[10, 26, -4]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @matmul_dynamic() {
  %a = flow.tensor.dynamic_constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> -> tensor<?x?xf32>
  %b = flow.tensor.dynamic_constant dense<[[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]]> : tensor<2x3xf32> -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%i : tensor<?x?xf32>) -> tensor<?x?xf32>
  %static = tensor.cast %r : tensor<?x?xf32> to tensor<3x3xf32>
  check.expect_almost_eq_const(%static, dense<[[1.0, 3.0, 2.5], [3.0, 5.0, 5.5], [5.0, 7.0, 8.5]]> : tensor<3x3xf32>) : tensor<3x3xf32>
  return
}

func.func @concat_dynamic() {
  %a = flow.tensor.dynamic_constant dense<[1, 2]> : tensor<2xi32> -> tensor<?xi32>
  %b = flow.tensor.dynamic_constant dense<[3, 4, 5]> : tensor<3xi32> -> tensor<?xi32>
  %c = tensor.concat dim(0) %a, %b : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  %static = tensor.cast %c : tensor<?xi32> to tensor<5xi32>
  check.expect_eq_const(%static, dense<[1, 2, 3, 4, 5]> : tensor<5xi32>) : tensor<5xi32>
  return
}

func.func @empty_dynamic_tensor() {
  %a = flow.tensor.dynamic_constant dense<> : tensor<0xf32> -> tensor<?xf32>
  %b = math.exp %a : tensor<?xf32>
  check.expect_almost_eq(%b, %a) : tensor<?xf32>
  return
}
