// COMPILE: --iree-hal-target-device=cuda --iree-cuda-target=sm_80
// A CUDA-only module: without --device, iree-run-module uses its default
// device (local-task), which cannot serve it; module init fails INCOMPATIBLE.
func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.mulf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
