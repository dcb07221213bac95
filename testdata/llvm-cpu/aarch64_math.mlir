// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-llvmcpu-target-triple=aarch64-unknown-linux-gnu
// aarch64 embedded ELF with math ops (exp/tanh lowered to polynomial code),
// a dynamic shape and a global; compiled only, no cases.
util.global private mutable @g = dense<1.0> : tensor<4xf32>
func.func @math(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = math.exp %a : tensor<?xf32>
  %1 = math.tanh %0 : tensor<?xf32>
  return %1 : tensor<?xf32>
}
func.func @bump(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = util.global.load @g : tensor<4xf32>
  %s = arith.addf %g, %x : tensor<4xf32>
  util.global.store %s, @g : tensor<4xf32>
  return %s : tensor<4xf32>
}
