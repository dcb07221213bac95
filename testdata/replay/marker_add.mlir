// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// A stand-in for add.mlir's kernel with the same name and ABI (two 4xf32
// inputs, one output) that writes the marker 12345 to every element
// (x * 0 is not folded for floats).
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %marker = arith.constant dense<12345.0> : tensor<4xf32>
  %0 = arith.mulf %a, %zero : tensor<4xf32>
  %1 = arith.mulf %b, %zero : tensor<4xf32>
  %2 = arith.addf %0, %1 : tensor<4xf32>
  %3 = arith.addf %2, %marker : tensor<4xf32>
  return %3 : tensor<4xf32>
}
