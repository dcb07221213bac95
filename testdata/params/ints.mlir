// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Integer parameters of several widths in scope "model" (.irpa and
// .safetensors; upstream reads only GGUF's older integer type codes).
util.global private @w_i32 = #flow.parameter.named<"model"::"w_i32"> : tensor<2x3xi32>
util.global private @w_i8 = #flow.parameter.named<"model"::"w_i8"> : tensor<16xi8>
util.global private @w_i64 = #flow.parameter.named<"model"::"w_i64"> : tensor<3xi64>

func.func @ints() -> (tensor<2x3xi32>, tensor<16xi8>, tensor<3xi64>) {
  %a = util.global.load @w_i32 : tensor<2x3xi32>
  %b = util.global.load @w_i8 : tensor<16xi8>
  %c = util.global.load @w_i64 : tensor<3xi64>
  return %a, %b, %c : tensor<2x3xi32>, tensor<16xi8>, tensor<3xi64>
}

func.func @scaled(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %w = util.global.load @w_i32 : tensor<2x3xi32>
  %r = arith.muli %x, %w : tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
