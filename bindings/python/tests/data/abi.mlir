// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Functions with legacy `iree.abi` JSON reflection (argument and result
// descriptors), which the Python API interprets.
func.func @pick(%a: tensor<4xi8>, %b: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xf32>) attributes {iree.reflection = {"iree.abi" = "{\"a\":[[\"ndarray\",\"i1\",1,4],[\"ndarray\",\"f32\",1,4]],\"r\":[[\"stuple\",[\"ndarray\",\"i1\",1,4],[\"ndarray\",\"f32\",1,4]]],\"v\":1}"}} {
  return %a, %b : tensor<4xi8>, tensor<4xf32>
}
func.func @named(%a: tensor<2xf32>, %k: i32) -> (tensor<2xf32>, i32) attributes {iree.reflection = {"iree.abi" = "{\"a\":[[\"ndarray\",\"f32\",1,2],\"i32\"],\"r\":[[\"sdict\",[\"sum\",[\"ndarray\",\"f32\",1,2]],[\"k\",\"i32\"]]],\"v\":1}"}} {
  %s = arith.addf %a, %a : tensor<2xf32>
  %k2 = arith.addi %k, %k : i32
  return %s, %k2 : tensor<2xf32>, i32
}
func.func @plain(%a: tensor<2xf32>) -> tensor<2xf32> attributes {iree.reflection = {"iree.abi" = "{\"a\":[[\"ndarray\",\"f32\",1,2]],\"r\":[[\"ndarray\",\"f32\",1,2]],\"v\":1}"}} {
  %s = arith.mulf %a, %a : tensor<2xf32>
  return %s : tensor<2xf32>
}
