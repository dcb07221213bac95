// COMPILE: --iree-execution-model=inline-dynamic --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// iree-check-module tests: every export is a test. The check dialect lowers
// tensor comparisons through the full HAL only, so these compare scalars
// extracted from computed tensors (check.expect_true / expect_false).
// Inputs are built from scalars behind util.optimization_barrier (constant
// tensors, util.unfoldable_constant included, fail to lower in the test
// functions of the inline models in 3.13).
func.func @add_iota() {
  %c3i = arith.constant 3 : i32
  %three = util.optimization_barrier %c3i : i32
  %e0 = tensor.empty() : tensor<4xi32>
  %a = linalg.fill ins(%three : i32) outs(%e0 : tensor<4xi32>) -> tensor<4xi32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xi32>) outs(%e0 : tensor<4xi32>) {
  ^bb0(%x: i32, %out: i32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %y = arith.addi %x, %ii : i32
    linalg.yield %y : i32
  } -> tensor<4xi32>
  %c3 = arith.constant 3 : index
  %v = tensor.extract %s[%c3] : tensor<4xi32>
  %c6 = arith.constant 6 : i32
  %ok = arith.cmpi eq, %v, %c6 : i32
  %ok32 = arith.extui %ok : i1 to i32
  check.expect_true(%ok32) : i32
  return
}
func.func @matmul_element() {
  %c2f = arith.constant 2.0 : f32
  %c15f = arith.constant 1.5 : f32
  %two = util.optimization_barrier %c2f : f32
  %onehalf = util.optimization_barrier %c15f : f32
  %ea = tensor.empty() : tensor<2x3xf32>
  %eb = tensor.empty() : tensor<3x2xf32>
  %a = linalg.fill ins(%two : f32) outs(%ea : tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = linalg.fill ins(%onehalf : f32) outs(%eb : tensor<3x2xf32>) -> tensor<3x2xf32>
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e0 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%i : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c1 = arith.constant 1 : index
  %v = tensor.extract %r[%c1, %c1] : tensor<2x2xf32>
  %c9 = arith.constant 9.0 : f32
  %ne = arith.cmpf one, %v, %c9 : f32
  %ne32 = arith.extui %ne : i1 to i32
  check.expect_false(%ne32) : i32
  return
}
