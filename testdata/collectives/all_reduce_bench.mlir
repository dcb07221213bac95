// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-input-demote-f64-to-f32=false
// The all_reduce benchmark (`cargo xtask bench-collectives`): one export per
// size, all_reduce_<size>, a sum of f32 over the default channel and nothing
// else, so iree-benchmark-module times one hal.command_buffer.collective
// (plus the call, the output allocation and the submission) per iteration.

func.func @all_reduce_4k(%arg0: tensor<1024xf32>) -> tensor<1024xf32> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<1024xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %arg0, %channel : (tensor<1024xf32>, tensor<1024xf32>, !flow.channel) -> %e as tensor<1024xf32>
  return %y : tensor<1024xf32>
}

func.func @all_reduce_16k(%arg0: tensor<4096xf32>) -> tensor<4096xf32> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<4096xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %arg0, %channel : (tensor<4096xf32>, tensor<4096xf32>, !flow.channel) -> %e as tensor<4096xf32>
  return %y : tensor<4096xf32>
}

func.func @all_reduce_64k(%arg0: tensor<16384xf32>) -> tensor<16384xf32> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<16384xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %arg0, %channel : (tensor<16384xf32>, tensor<16384xf32>, !flow.channel) -> %e as tensor<16384xf32>
  return %y : tensor<16384xf32>
}

func.func @all_reduce_256k(%arg0: tensor<65536xf32>) -> tensor<65536xf32> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<65536xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %arg0, %channel : (tensor<65536xf32>, tensor<65536xf32>, !flow.channel) -> %e as tensor<65536xf32>
  return %y : tensor<65536xf32>
}

func.func @all_reduce_1m(%arg0: tensor<262144xf32>) -> tensor<262144xf32> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<262144xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %arg0, %channel : (tensor<262144xf32>, tensor<262144xf32>, !flow.channel) -> %e as tensor<262144xf32>
  return %y : tensor<262144xf32>
}

func.func @all_reduce_4m(%arg0: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<1048576xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %arg0, %channel : (tensor<1048576xf32>, tensor<1048576xf32>, !flow.channel) -> %e as tensor<1048576xf32>
  return %y : tensor<1048576xf32>
}

func.func @all_reduce_16m(%arg0: tensor<4194304xf32>) -> tensor<4194304xf32> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<4194304xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %arg0, %channel : (tensor<4194304xf32>, tensor<4194304xf32>, !flow.channel) -> %e as tensor<4194304xf32>
  return %y : tensor<4194304xf32>
}

func.func @all_reduce_64m(%arg0: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<16777216xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %arg0, %channel : (tensor<16777216xf32>, tensor<16777216xf32>, !flow.channel) -> %e as tensor<16777216xf32>
  return %y : tensor<16777216xf32>
}
