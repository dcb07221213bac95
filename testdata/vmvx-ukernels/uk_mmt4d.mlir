// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx --iree-vmvx-enable-microkernels --iree-opt-data-tiling
// Data-tiled matmuls (--iree-opt-data-tiling): operands are packed with
// vmvx.pack (transposed RHS tiles, padding), multiplied with vmvx.mmt4d
// (f32 and s8 x s8 -> s32, with and without accumulation) and unpacked with
// vmvx.unpack; dynamic shapes take their tile sizes from
// vmvx.query_tile_sizes.2d at run time. `fma` inputs tell fused from
// separate multiply-adds apart: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 with a
// fused multiply-add and 0 without.
func.func @mm_f32(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>) outs(%i : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
func.func @mm_f32_acc(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>, %c: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>) outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
func.func @mm_i8(%a: tensor<5x7xi8>, %b: tensor<7x3xi8>) -> tensor<5x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<5x3xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<5x3xi32>) -> tensor<5x3xi32>
  %r = linalg.matmul ins(%a, %b : tensor<5x7xi8>, tensor<7x3xi8>) outs(%i : tensor<5x3xi32>) -> tensor<5x3xi32>
  return %r : tensor<5x3xi32>
}
func.func @mm_dyn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @mm_i8_dyn(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xi8>, tensor<?x?xi8>) outs(%c : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}
func.func @mm_33(%a: tensor<33x40xf32>, %b: tensor<40x17xf32>) -> tensor<33x17xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x17xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<33x17xf32>) -> tensor<33x17xf32>
  %r = linalg.matmul ins(%a, %b : tensor<33x40xf32>, tensor<40x17xf32>) outs(%i : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %r : tensor<33x17xf32>
}
func.func @bmm(%a: tensor<2x4x6xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x4x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x3xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x6xf32>, tensor<2x6x3xf32>) outs(%i : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return %r : tensor<2x4x3xf32>
}
