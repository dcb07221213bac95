// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-execution-model=async-external
// async-external matmul (static 2x3*3x2 and 16x16 f32) and a stateful global
// update, all through the coarse-fences ABI.
util.global private mutable @total = dense<0.0> : tensor<f32>
func.func @mm(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%i : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
func.func @mm16(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%i : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
func.func @add_total(%x: tensor<f32>) -> tensor<f32> {
  %t = util.global.load @total : tensor<f32>
  %s = arith.addf %t, %x : tensor<f32>
  util.global.store %s, @total : tensor<f32>
  %s2 = arith.addf %s, %x : tensor<f32>
  util.global.store %s2, @total : tensor<f32>
  %r = util.global.load @total : tensor<f32>
  return %r : tensor<f32>
}
