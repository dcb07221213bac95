// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-input-demote-f64-to-f32=false
// f64 needs --iree-input-demote-f64-to-f32=false: iree-compile 3.13 demotes
// f64 to f32 by default (the ABI then takes and returns f32).
// Type conversions on tensors: int<->float (signed and unsigned), integer
// extension/truncation, float extension/truncation to f16/bf16/f64, bitcast.
func.func @int_to_float(%a: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf64>) {
  %0 = arith.sitofp %a : tensor<4xi32> to tensor<4xf32>
  %1 = arith.uitofp %a : tensor<4xi32> to tensor<4xf32>
  %2 = arith.sitofp %a : tensor<4xi32> to tensor<4xf64>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf64>
}
func.func @float_to_int(%a: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi8>) {
  %0 = arith.fptosi %a : tensor<4xf32> to tensor<4xi32>
  %1 = arith.fptoui %a : tensor<4xf32> to tensor<4xi8>
  return %0, %1 : tensor<4xi32>, tensor<4xi8>
}
func.func @int_width(%a: tensor<4xi16>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi8>) {
  %0 = arith.extsi %a : tensor<4xi16> to tensor<4xi64>
  %1 = arith.extui %a : tensor<4xi16> to tensor<4xi64>
  %2 = arith.trunci %a : tensor<4xi16> to tensor<4xi8>
  return %0, %1, %2 : tensor<4xi64>, tensor<4xi64>, tensor<4xi8>
}
func.func @float_width(%a: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>) {
  %0 = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  %1 = arith.truncf %a : tensor<4xf32> to tensor<4xbf16>
  %2 = arith.extf %a : tensor<4xf32> to tensor<4xf64>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>
}
func.func @bitcast(%a: tensor<4xf32>) -> tensor<4xi32> {
  %0 = arith.bitcast %a : tensor<4xf32> to tensor<4xi32>
  return %0 : tensor<4xi32>
}
