// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Passes a tensor through a Python module (`pyt.twice`, a PyModuleInterface
// export taking and returning a !hal.buffer_view) and then through a
// dispatch.
func.func private @pyt.twice(tensor<4xf32>) -> tensor<4xf32>

func.func @run(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @pyt.twice(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = arith.addf %y, %x : tensor<4xf32>
  return %z : tensor<4xf32>
}
