// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Mixed-precision matmul: i8 x i8 accumulated in i32 (sign-extended
// operands), and f16 x f16 accumulated in f32.
func.func @mm_i8_i32(%a: tensor<3x4xi8>, %b: tensor<4x2xi8>) -> tensor<3x2xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3x2xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<3x2xi32>) -> tensor<3x2xi32>
  %r = linalg.matmul ins(%a, %b : tensor<3x4xi8>, tensor<4x2xi8>) outs(%i : tensor<3x2xi32>) -> tensor<3x2xi32>
  return %r : tensor<3x2xi32>
}
func.func @mm_f16_f32(%a: tensor<2x3xf16>, %b: tensor<3x2xf16>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf16>, tensor<3x2xf16>) outs(%i : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
