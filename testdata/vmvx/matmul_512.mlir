// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// A static 512x512x512 f32 matmul on VMVX without microkernels, so its inner
// loops run in the bytecode interpreter: the VMVX workload of `cargo xtask
// bench` (ours vs upstream on local-sync).
func.func @matmul(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%i : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
