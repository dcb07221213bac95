// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Floating-point parameters in scope "model", served by every format:
// .irpa (ours and upstream's writer), .safetensors and .gguf.
util.global private @w_f32 = #flow.parameter.named<"model"::"w_f32"> : tensor<4xf32>
util.global private @w_f16 = #flow.parameter.named<"model"::"w_f16"> : tensor<8xf16>
util.global private @w_big = #flow.parameter.named<"model"::"w_big"> : tensor<128x128xf32>

func.func @add(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = util.global.load @w_f32 : tensor<4xf32>
  %r = arith.addf %x, %w : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @halfs() -> tensor<8xf16> {
  %w = util.global.load @w_f16 : tensor<8xf16>
  return %w : tensor<8xf16>
}

// w_big (128x128) times x (128): every weight is read.
func.func @matvec(%x: tensor<128xf32>) -> tensor<128xf32> {
  %w = util.global.load @w_big : tensor<128x128xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.matvec ins(%w, %x : tensor<128x128xf32>, tensor<128xf32>) outs(%init : tensor<128xf32>) -> tensor<128xf32>
  return %r : tensor<128xf32>
}

// A corner of w_big, read straight out of the parameter.
func.func @corner() -> tensor<2x3xf32> {
  %w = util.global.load @w_big : tensor<128x128xf32>
  %c = tensor.extract_slice %w[126, 125] [2, 3] [1, 1] : tensor<128x128xf32> to tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}
