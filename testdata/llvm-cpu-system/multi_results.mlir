// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-llvmcpu-link-embedded=false
// Multiple results of mixed types and ranks: four results (f32, i32, i1,
// rank-0), the same value returned twice, an input returned unchanged
// alongside a computed value, and no results at all.
func.func @four(%a: tensor<3xf32>, %b: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<f32>) {
  %0 = arith.mulf %a, %a : tensor<3xf32>
  %1 = arith.addi %b, %b : tensor<3xi32>
  %z = arith.constant dense<0> : tensor<3xi32>
  %2 = arith.cmpi sgt, %b, %z : tensor<3xi32>
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %i = linalg.fill ins(%c : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %3 = linalg.reduce ins(%a : tensor<3xf32>) outs(%i : tensor<f32>) dimensions = [0]
    (%x: f32, %y: f32) { %s = arith.addf %x, %y : f32
      linalg.yield %s : f32 }
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<f32>
}
func.func @twice(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = arith.negf %a : tensor<2xf32>
  return %0, %0 : tensor<2xf32>, tensor<2xf32>
}
func.func @passthrough(%a: tensor<2x2xi16>, %b: tensor<2x2xi16>) -> (tensor<2x2xi16>, tensor<2x2xi16>, tensor<2x2xi16>) {
  %0 = arith.subi %a, %b : tensor<2x2xi16>
  return %b, %0, %a : tensor<2x2xi16>, tensor<2x2xi16>, tensor<2x2xi16>
}
func.func @nothing(%a: tensor<2xf32>) {
  return
}
