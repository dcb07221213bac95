// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx --iree-vmvx-enable-microkernels
// Strided slices and transposes of 1-, 2-, 4- and 8-byte elements, lowered
// to vmvx.copy.2d.x{8,16,32,64} calls with a strided source, plus an add with
// a transposed operand (vmvx.add.2d.f32 with strides (1, 4)).
//
// Upstream 3.13 quirk recorded here: every non-square transpose fails with
// OUT_OF_RANGE in vmvx.copy.2d.* (the compiler passes the source strides in
// the order of the result, so the kernel's bound (size0 - 1) * stride0 +
// (size1 - 1) * stride1 overshoots the buffer); square transposes work.
func.func @tr_i8(%a: tensor<3x5xi8>) -> tensor<5x3xi8> {
  %e = tensor.empty() : tensor<5x3xi8>
  %r = linalg.transpose ins(%a : tensor<3x5xi8>) outs(%e : tensor<5x3xi8>) permutation = [1, 0]
  return %r : tensor<5x3xi8>
}
func.func @tr_i16(%a: tensor<3x5xi16>) -> tensor<5x3xi16> {
  %e = tensor.empty() : tensor<5x3xi16>
  %r = linalg.transpose ins(%a : tensor<3x5xi16>) outs(%e : tensor<5x3xi16>) permutation = [1, 0]
  return %r : tensor<5x3xi16>
}
func.func @tr_f32(%a: tensor<3x5xf32>) -> tensor<5x3xf32> {
  %e = tensor.empty() : tensor<5x3xf32>
  %r = linalg.transpose ins(%a : tensor<3x5xf32>) outs(%e : tensor<5x3xf32>) permutation = [1, 0]
  return %r : tensor<5x3xf32>
}
func.func @tr_i64(%a: tensor<3x5xi64>) -> tensor<5x3xi64> {
  %e = tensor.empty() : tensor<5x3xi64>
  %r = linalg.transpose ins(%a : tensor<3x5xi64>) outs(%e : tensor<5x3xi64>) permutation = [1, 0]
  return %r : tensor<5x3xi64>
}
func.func @slice_i8(%a: tensor<4x8xi8>) -> tensor<3x3xi8> {
  %r = tensor.extract_slice %a[1, 1] [3, 3] [1, 2] : tensor<4x8xi8> to tensor<3x3xi8>
  return %r : tensor<3x3xi8>
}
func.func @slice_i16(%a: tensor<4x8xi16>) -> tensor<3x3xi16> {
  %r = tensor.extract_slice %a[1, 1] [3, 3] [1, 2] : tensor<4x8xi16> to tensor<3x3xi16>
  return %r : tensor<3x3xi16>
}
func.func @slice_f32(%a: tensor<4x8xf32>) -> tensor<3x3xf32> {
  %r = tensor.extract_slice %a[1, 1] [3, 3] [1, 2] : tensor<4x8xf32> to tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}
func.func @slice_i64(%a: tensor<4x8xi64>) -> tensor<3x3xi64> {
  %r = tensor.extract_slice %a[1, 1] [3, 3] [1, 2] : tensor<4x8xi64> to tensor<3x3xi64>
  return %r : tensor<3x3xi64>
}
func.func @tr_sq(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.transpose ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) permutation = [1, 0]
  return %r : tensor<4x4xf32>
}
func.func @bcast(%a: tensor<5xi16>) -> tensor<3x5xi16> {
  %e = tensor.empty() : tensor<3x5xi16>
  %r = linalg.broadcast ins(%a : tensor<5xi16>) outs(%e : tensor<3x5xi16>) dimensions = [0]
  return %r : tensor<3x5xi16>
}
func.func @addmix(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
