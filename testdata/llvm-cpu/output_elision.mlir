// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Large generated outputs (iota via linalg.generic over 1-D 2000, 3-D
// 2x2x2 and 2-D 40x40 shapes) for --output_max_element_count elision.
#m1 = affine_map<(d0) -> (d0)>
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @iota2000(%k: tensor<f32>) -> tensor<2000xf32> {
  %e = tensor.empty() : tensor<2000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, #m1], iterator_types = ["parallel"]} ins(%k : tensor<f32>) outs(%e : tensor<2000xf32>) {
  ^bb0(%s: f32, %o: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %m = arith.mulf %f, %s : f32
    linalg.yield %m : f32
  } -> tensor<2000xf32>
  return %r : tensor<2000xf32>
}
func.func @iota222(%k: tensor<i32>) -> tensor<2x2x2xi32> {
  %e = tensor.empty() : tensor<2x2x2xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ()>, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k : tensor<i32>) outs(%e : tensor<2x2x2xi32>) {
  ^bb0(%s: i32, %o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %l = linalg.index 2 : index
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %a = arith.muli %i, %c4 : index
    %b = arith.muli %j, %c2 : index
    %t = arith.addi %a, %b : index
    %u = arith.addi %t, %l : index
    %c = arith.index_cast %u : index to i32
    %r1 = arith.addi %c, %s : i32
    linalg.yield %r1 : i32
  } -> tensor<2x2x2xi32>
  return %r : tensor<2x2x2xi32>
}
func.func @grid40(%k: tensor<i16>) -> tensor<40x40xi16> {
  %e = tensor.empty() : tensor<40x40xi16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, #m2], iterator_types = ["parallel", "parallel"]} ins(%k : tensor<i16>) outs(%e : tensor<40x40xi16>) {
  ^bb0(%s: i16, %o: i16):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c100 = arith.constant 100 : index
    %a = arith.muli %i, %c100 : index
    %t = arith.addi %a, %j : index
    %c = arith.index_cast %t : index to i16
    %r1 = arith.addi %c, %s : i16
    linalg.yield %r1 : i16
  } -> tensor<40x40xi16>
  return %r : tensor<40x40xi16>
}
