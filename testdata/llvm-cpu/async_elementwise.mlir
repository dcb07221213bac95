// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-execution-model=async-external
// async-external (coarse-fences ABI): each export takes its inputs plus a
// wait fence and a signal fence. iree-run-module supplies the fences itself;
// elementwise add, a 2-result function and a dynamic-shape function.
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @two(%a: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %0 = arith.addi %a, %a : tensor<3xi32>
  %1 = arith.muli %a, %a : tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}
func.func @dyn(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.mulf %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
