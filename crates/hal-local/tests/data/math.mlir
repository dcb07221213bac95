func.func @floor_fma(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = math.floor %a : tensor<8xf32>
  %1 = math.fma %0, %b, %a : tensor<8xf32>
  %2 = math.ceil %1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}
