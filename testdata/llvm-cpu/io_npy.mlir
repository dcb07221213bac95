// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Functions fed from .npy / raw .bin fixtures: --input=@f.npy (first array),
// +f.npy (next array), *f.npy (all remaining arrays), 4xf32=@f.bin / +f.bin.
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @add3(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  %1 = arith.addf %0, %c : tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func @neg_i32(%a: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %z = arith.constant dense<0> : tensor<2x2xi32>
  %0 = arith.subi %z, %a : tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
func.func @rank0(%a: tensor<f32>) -> tensor<f32> {
  %0 = arith.mulf %a, %a : tensor<f32>
  return %0 : tensor<f32>
}
func.func @id_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  %0 = arith.xori %a, %a : tensor<4xi1>
  %1 = arith.ori %0, %a : tensor<4xi1>
  return %1 : tensor<4xi1>
}
func.func @id_ui8(%a: tensor<4xui8>) -> tensor<4xui8> {
  return %a : tensor<4xui8>
}
func.func @f16_to_f32(%a: tensor<4xf16>) -> tensor<4xf32> {
  %0 = arith.extf %a : tensor<4xf16> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
