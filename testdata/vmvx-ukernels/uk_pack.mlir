// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx --iree-vmvx-enable-microkernels
// linalg.pack / linalg.unpack lowered to vmvx.pack and vmvx.unpack calls:
// f32, i32 and i8 element types, padding values, partial edge tiles, and
// transposed inner tiles and outer dimensions.
func.func @pack_pad(%a: tensor<5x7xf32>) -> tensor<2x3x4x3xf32> {
  %p = arith.constant -1.5 : f32
  %e = tensor.empty() : tensor<2x3x4x3xf32>
  %r = linalg.pack %a padding_value(%p : f32) inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %e : tensor<5x7xf32> -> tensor<2x3x4x3xf32>
  return %r : tensor<2x3x4x3xf32>
}
func.func @pack_t(%a: tensor<5x7xi32>) -> tensor<3x2x3x4xi32> {
  %p = arith.constant 99 : i32
  %e = tensor.empty() : tensor<3x2x3x4xi32>
  %r = linalg.pack %a padding_value(%p : i32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [3, 4] into %e : tensor<5x7xi32> -> tensor<3x2x3x4xi32>
  return %r : tensor<3x2x3x4xi32>
}
func.func @pack_i8(%a: tensor<5x7xi8>) -> tensor<3x4x2x2xi8> {
  %p = arith.constant -7 : i8
  %e = tensor.empty() : tensor<3x4x2x2xi8>
  %r = linalg.pack %a padding_value(%p : i8) inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %e : tensor<5x7xi8> -> tensor<3x4x2x2xi8>
  return %r : tensor<3x4x2x2xi8>
}
func.func @unpack_f(%a: tensor<2x3x4x3xf32>) -> tensor<5x7xf32> {
  %e = tensor.empty() : tensor<5x7xf32>
  %r = linalg.unpack %a inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %e : tensor<2x3x4x3xf32> -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}
func.func @unpack_t(%a: tensor<3x2x3x4xi32>) -> tensor<5x7xi32> {
  %e = tensor.empty() : tensor<5x7xi32>
  %r = linalg.unpack %a outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [3, 4] into %e : tensor<3x2x3x4xi32> -> tensor<5x7xi32>
  return %r : tensor<5x7xi32>
}
