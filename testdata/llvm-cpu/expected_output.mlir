// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Functions checked with --expected_output: exact and approximate float
// matches, integer mismatches, shape/type mismatches, and (ignored).
func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @iadd(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %0 = arith.addi %a, %b : tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
func.func @pair(%a: tensor<3xf16>) -> (tensor<3xf16>, tensor<3xf32>) {
  %0 = arith.extf %a : tensor<3xf16> to tensor<3xf32>
  return %a, %0 : tensor<3xf16>, tensor<3xf32>
}
func.func @scalar(%a: i32, %b: f32) -> (i32, f32) {
  %0 = arith.addi %a, %a : i32
  %1 = arith.mulf %b, %b : f32
  return %0, %1 : i32, f32
}
