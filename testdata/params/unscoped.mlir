// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// A parameter without a scope: served by `--parameters=file` (the
// unscoped form), not by `--parameters=scope=file`.
util.global private @w_f32 = #flow.parameter.named<"w_f32"> : tensor<4xf32>

func.func @add(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = util.global.load @w_f32 : tensor<4xf32>
  %r = arith.addf %x, %w : tensor<4xf32>
  return %r : tensor<4xf32>
}
