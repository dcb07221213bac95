// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// A row-parallel (Megatron-style) linear layer: every rank takes its slice
// of the contraction dimension of x (2x8) and W (8x3), multiplies them, and
// an all_reduce sum gives every rank x @ W, the unsharded product `dense`
// computes alone. Works for 1, 2, 4 and 8 ranks.
func.func @tp_linear(%x: tensor<2x8xf32>, %w: tensor<8x3xf32>) -> tensor<2x3xf32> {
  %channel = flow.channel.default : !flow.channel
  %rank = flow.channel.rank %channel : index
  %count = flow.channel.count %channel : index
  %c8 = arith.constant 8 : index
  %k = arith.divui %c8, %count : index
  %off = arith.muli %rank, %k : index
  %xs = tensor.extract_slice %x[0, %off] [2, %k] [1, 1] : tensor<2x8xf32> to tensor<2x?xf32>
  %ws = tensor.extract_slice %w[%off, 0] [%k, 3] [1, 1] : tensor<8x3xf32> to tensor<?x3xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %partial = linalg.matmul ins(%xs, %ws : tensor<2x?xf32>, tensor<?x3xf32>) outs(%acc : tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = flow.tensor.empty : tensor<2x3xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %partial, %channel : (tensor<2x3xf32>, tensor<2x3xf32>, !flow.channel) -> %e as tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

func.func @dense(%x: tensor<2x8xf32>, %w: tensor<8x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x8xf32>, tensor<8x3xf32>) outs(%acc : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
