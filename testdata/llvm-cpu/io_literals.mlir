// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Identity-like functions used to check how buffer-view literal inputs are
// parsed: splats, bracket nesting, comma/space separators, omitted values,
// (null), exponents and specials. @f64_3 is compiled with the default f64->f32
// demotion, so its ABI takes and returns tensor<3xf32>; an f64 input is rejected.
func.func @f32_2x3(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = arith.addf %a, %a : tensor<2x3xf32>
  %1 = arith.subf %0, %a : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
func.func @i32_2x2x2(%a: tensor<2x2x2xi32>) -> tensor<2x2x2xi32> {
  %z = arith.constant dense<0> : tensor<2x2x2xi32>
  %0 = arith.addi %a, %z : tensor<2x2x2xi32>
  return %0 : tensor<2x2x2xi32>
}
func.func @any(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
func.func @f64_3(%a: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.addf %a, %a : tensor<3xf64>
  return %0 : tensor<3xf64>
}
