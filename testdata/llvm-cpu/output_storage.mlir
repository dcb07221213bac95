// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Caller-provided output storage: the result is written into the !hal.buffer
// passed as argument 2 (`--input=&4xf32` in iree-run-module).
func.func @mul_into(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>, %storage: !hal.buffer) -> (tensor<4xf32> {iree.abi.output = 2 : index}) {
  %r = arith.mulf %lhs, %rhs : tensor<4xf32>
  return %r : tensor<4xf32>
}
