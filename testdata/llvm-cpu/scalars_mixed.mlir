// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Scalar (i32, f32, i64, index) arguments and results mixed with tensors:
// splat a scalar, scale a tensor by a scalar, extract an element at a
// runtime index, and return a scalar computed from a tensor.
func.func @scale(%k: f32, %x: tensor<4xf32>) -> tensor<4xf32> {
  %b_e = tensor.empty() : tensor<4xf32>
  %b = linalg.fill ins(%k : f32) outs(%b_e : tensor<4xf32>) -> tensor<4xf32>
  %r = arith.mulf %x, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @offset(%x: tensor<3xi32>, %k: i32, %y: tensor<3xi32>) -> (tensor<3xi32>, i32) {
  %b_e = tensor.empty() : tensor<3xi32>
  %b = linalg.fill ins(%k : i32) outs(%b_e : tensor<3xi32>) -> tensor<3xi32>
  %s = arith.addi %x, %y : tensor<3xi32>
  %r = arith.addi %s, %b : tensor<3xi32>
  %k2 = arith.muli %k, %k : i32
  return %r, %k2 : tensor<3xi32>, i32
}
func.func @pick(%x: tensor<5xf32>, %i: index) -> f32 {
  %v = tensor.extract %x[%i] : tensor<5xf32>
  return %v : f32
}
func.func @first_i64(%x: tensor<2xi64>, %d: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<2xi64>
  %r = arith.addi %v, %d : i64
  return %r : i64
}
func.func @fill(%v: i32) -> tensor<2x2xi32> {
  %e = tensor.empty() : tensor<2x2xi32>
  %r = linalg.fill ins(%v : i32) outs(%e : tensor<2x2xi32>) -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}
