// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-input-demote-f64-to-f32=false
// Collectives as compiled programs emit them (flow.collective.* ->
// hal.channel.create / hal.command_buffer.collective). Each rank adds its
// rank to the input (bf16 ones excepted: converting to bf16 in a kernel
// needs a runtime library the generic CPU target lacks), so results differ
// by rank; crates' tests run these
// under `mpirun -n 1|2|4` on local-sync and local-task (see
// tools/iree-run-module/tests/collectives.rs for the expected values).

func.func @rank_and_count() -> (index, index) {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %n = flow.channel.count %channel : index
  return %r, %n : index, index
}

func.func @all_reduce_sum_f32(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @all_reduce_sum_f16(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf16>
  %x = arith.addf %arg0, %s : tensor<4xf16>
  %e = flow.tensor.empty : tensor<4xf16>
  %y = flow.collective.all_reduce sum, f16, %e, %x, %channel : (tensor<4xf16>, tensor<4xf16>, !flow.channel) -> %e as tensor<4xf16>
  return %y : tensor<4xf16>
}

func.func @all_reduce_sum_bf16(%arg0: tensor<4xbf16>) -> tensor<4xbf16> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<4xbf16>
  %y = flow.collective.all_reduce sum, bf16, %e, %arg0, %channel : (tensor<4xbf16>, tensor<4xbf16>, !flow.channel) -> %e as tensor<4xbf16>
  return %y : tensor<4xbf16>
}

func.func @all_reduce_sum_f64(%arg0: tensor<4xf64>) -> tensor<4xf64> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf64>
  %x = arith.addf %arg0, %s : tensor<4xf64>
  %e = flow.tensor.empty : tensor<4xf64>
  %y = flow.collective.all_reduce sum, f64, %e, %x, %channel : (tensor<4xf64>, tensor<4xf64>, !flow.channel) -> %e as tensor<4xf64>
  return %y : tensor<4xf64>
}

func.func @all_reduce_sum_i8(%arg0: tensor<4xi8>) -> tensor<4xi8> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.trunci %si : tensor<4xi32> to tensor<4xi8>
  %x = arith.addi %arg0, %s : tensor<4xi8>
  %e = flow.tensor.empty : tensor<4xi8>
  %y = flow.collective.all_reduce sum, si8, %e, %x, %channel : (tensor<4xi8>, tensor<4xi8>, !flow.channel) -> %e as tensor<4xi8>
  return %y : tensor<4xi8>
}

func.func @all_reduce_sum_i16(%arg0: tensor<4xi16>) -> tensor<4xi16> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.trunci %si : tensor<4xi32> to tensor<4xi16>
  %x = arith.addi %arg0, %s : tensor<4xi16>
  %e = flow.tensor.empty : tensor<4xi16>
  %y = flow.collective.all_reduce sum, si16, %e, %x, %channel : (tensor<4xi16>, tensor<4xi16>, !flow.channel) -> %e as tensor<4xi16>
  return %y : tensor<4xi16>
}

func.func @all_reduce_sum_i32(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %s = flow.tensor.splat %ri : tensor<4xi32>
  %x = arith.addi %arg0, %s : tensor<4xi32>
  %e = flow.tensor.empty : tensor<4xi32>
  %y = flow.collective.all_reduce sum, si32, %e, %x, %channel : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> %e as tensor<4xi32>
  return %y : tensor<4xi32>
}

func.func @all_reduce_sum_i64(%arg0: tensor<4xi64>) -> tensor<4xi64> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.extsi %si : tensor<4xi32> to tensor<4xi64>
  %x = arith.addi %arg0, %s : tensor<4xi64>
  %e = flow.tensor.empty : tensor<4xi64>
  %y = flow.collective.all_reduce sum, si64, %e, %x, %channel : (tensor<4xi64>, tensor<4xi64>, !flow.channel) -> %e as tensor<4xi64>
  return %y : tensor<4xi64>
}

func.func @all_reduce_product_f32(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %y = flow.collective.all_reduce product, f32, %e, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @all_reduce_product_f16(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf16>
  %x = arith.addf %arg0, %s : tensor<4xf16>
  %e = flow.tensor.empty : tensor<4xf16>
  %y = flow.collective.all_reduce product, f16, %e, %x, %channel : (tensor<4xf16>, tensor<4xf16>, !flow.channel) -> %e as tensor<4xf16>
  return %y : tensor<4xf16>
}

func.func @all_reduce_product_i32(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %s = flow.tensor.splat %ri : tensor<4xi32>
  %x = arith.addi %arg0, %s : tensor<4xi32>
  %e = flow.tensor.empty : tensor<4xi32>
  %y = flow.collective.all_reduce product, si32, %e, %x, %channel : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> %e as tensor<4xi32>
  return %y : tensor<4xi32>
}

func.func @all_reduce_minimum_f32(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %y = flow.collective.all_reduce minimum, f32, %e, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @all_reduce_minimum_f16(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf16>
  %x = arith.addf %arg0, %s : tensor<4xf16>
  %e = flow.tensor.empty : tensor<4xf16>
  %y = flow.collective.all_reduce minimum, f16, %e, %x, %channel : (tensor<4xf16>, tensor<4xf16>, !flow.channel) -> %e as tensor<4xf16>
  return %y : tensor<4xf16>
}

func.func @all_reduce_minimum_i32(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %s = flow.tensor.splat %ri : tensor<4xi32>
  %x = arith.addi %arg0, %s : tensor<4xi32>
  %e = flow.tensor.empty : tensor<4xi32>
  %y = flow.collective.all_reduce minimum, si32, %e, %x, %channel : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> %e as tensor<4xi32>
  return %y : tensor<4xi32>
}

func.func @all_reduce_maximum_f32(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %y = flow.collective.all_reduce maximum, f32, %e, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @all_reduce_maximum_f16(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf16>
  %x = arith.addf %arg0, %s : tensor<4xf16>
  %e = flow.tensor.empty : tensor<4xf16>
  %y = flow.collective.all_reduce maximum, f16, %e, %x, %channel : (tensor<4xf16>, tensor<4xf16>, !flow.channel) -> %e as tensor<4xf16>
  return %y : tensor<4xf16>
}

func.func @all_reduce_maximum_i32(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %s = flow.tensor.splat %ri : tensor<4xi32>
  %x = arith.addi %arg0, %s : tensor<4xi32>
  %e = flow.tensor.empty : tensor<4xi32>
  %y = flow.collective.all_reduce maximum, si32, %e, %x, %channel : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> %e as tensor<4xi32>
  return %y : tensor<4xi32>
}

func.func @all_reduce_average_f32(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %y = flow.collective.all_reduce average, f32, %e, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @all_reduce_average_f16(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf16>
  %x = arith.addf %arg0, %s : tensor<4xf16>
  %e = flow.tensor.empty : tensor<4xf16>
  %y = flow.collective.all_reduce average, f16, %e, %x, %channel : (tensor<4xf16>, tensor<4xf16>, !flow.channel) -> %e as tensor<4xf16>
  return %y : tensor<4xf16>
}

func.func @all_reduce_average_i32(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %s = flow.tensor.splat %ri : tensor<4xi32>
  %x = arith.addi %arg0, %s : tensor<4xi32>
  %e = flow.tensor.empty : tensor<4xi32>
  %y = flow.collective.all_reduce average, si32, %e, %x, %channel : (tensor<4xi32>, tensor<4xi32>, !flow.channel) -> %e as tensor<4xi32>
  return %y : tensor<4xi32>
}

func.func @all_gather_2_f32(%arg0: tensor<2xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<2xi32>
  %s = arith.sitofp %si : tensor<2xi32> to tensor<2xf32>
  %x = arith.addf %arg0, %s : tensor<2xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %y = flow.collective.all_gather f32, %e, %x, %channel : (tensor<4xf32>, tensor<2xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @reduce_scatter_2_f32(%arg0: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4x2xi32>
  %s = arith.sitofp %si : tensor<4x2xi32> to tensor<4x2xf32>
  %x = arith.addf %arg0, %s : tensor<4x2xf32>
  %e = flow.tensor.empty : tensor<2x2xf32>
  %y = flow.collective.reduce_scatter sum, f32, %e, %x, %channel : (tensor<2x2xf32>, tensor<4x2xf32>, !flow.channel) -> %e as tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @all_gather_2_bf16(%arg0: tensor<2xbf16>) -> tensor<4xbf16> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<4xbf16>
  %y = flow.collective.all_gather bf16, %e, %arg0, %channel : (tensor<4xbf16>, tensor<2xbf16>, !flow.channel) -> %e as tensor<4xbf16>
  return %y : tensor<4xbf16>
}

func.func @reduce_scatter_2_bf16(%arg0: tensor<4x2xbf16>) -> tensor<2x2xbf16> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<2x2xbf16>
  %y = flow.collective.reduce_scatter sum, bf16, %e, %arg0, %channel : (tensor<2x2xbf16>, tensor<4x2xbf16>, !flow.channel) -> %e as tensor<2x2xbf16>
  return %y : tensor<2x2xbf16>
}

func.func @all_gather_2_i8(%arg0: tensor<2xi8>) -> tensor<4xi8> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<2xi32>
  %s = arith.trunci %si : tensor<2xi32> to tensor<2xi8>
  %x = arith.addi %arg0, %s : tensor<2xi8>
  %e = flow.tensor.empty : tensor<4xi8>
  %y = flow.collective.all_gather si8, %e, %x, %channel : (tensor<4xi8>, tensor<2xi8>, !flow.channel) -> %e as tensor<4xi8>
  return %y : tensor<4xi8>
}

func.func @reduce_scatter_2_i8(%arg0: tensor<4x2xi8>) -> tensor<2x2xi8> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4x2xi32>
  %s = arith.trunci %si : tensor<4x2xi32> to tensor<4x2xi8>
  %x = arith.addi %arg0, %s : tensor<4x2xi8>
  %e = flow.tensor.empty : tensor<2x2xi8>
  %y = flow.collective.reduce_scatter sum, si8, %e, %x, %channel : (tensor<2x2xi8>, tensor<4x2xi8>, !flow.channel) -> %e as tensor<2x2xi8>
  return %y : tensor<2x2xi8>
}

func.func @all_gather_4_f32(%arg0: tensor<2xf32>) -> tensor<8xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<2xi32>
  %s = arith.sitofp %si : tensor<2xi32> to tensor<2xf32>
  %x = arith.addf %arg0, %s : tensor<2xf32>
  %e = flow.tensor.empty : tensor<8xf32>
  %y = flow.collective.all_gather f32, %e, %x, %channel : (tensor<8xf32>, tensor<2xf32>, !flow.channel) -> %e as tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @reduce_scatter_4_f32(%arg0: tensor<4x2xf32>) -> tensor<1x2xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4x2xi32>
  %s = arith.sitofp %si : tensor<4x2xi32> to tensor<4x2xf32>
  %x = arith.addf %arg0, %s : tensor<4x2xf32>
  %e = flow.tensor.empty : tensor<1x2xf32>
  %y = flow.collective.reduce_scatter sum, f32, %e, %x, %channel : (tensor<1x2xf32>, tensor<4x2xf32>, !flow.channel) -> %e as tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

func.func @all_gather_4_bf16(%arg0: tensor<2xbf16>) -> tensor<8xbf16> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<8xbf16>
  %y = flow.collective.all_gather bf16, %e, %arg0, %channel : (tensor<8xbf16>, tensor<2xbf16>, !flow.channel) -> %e as tensor<8xbf16>
  return %y : tensor<8xbf16>
}

func.func @reduce_scatter_4_bf16(%arg0: tensor<4x2xbf16>) -> tensor<1x2xbf16> {
  %channel = flow.channel.default : !flow.channel
  %e = flow.tensor.empty : tensor<1x2xbf16>
  %y = flow.collective.reduce_scatter sum, bf16, %e, %arg0, %channel : (tensor<1x2xbf16>, tensor<4x2xbf16>, !flow.channel) -> %e as tensor<1x2xbf16>
  return %y : tensor<1x2xbf16>
}

func.func @all_gather_4_i8(%arg0: tensor<2xi8>) -> tensor<8xi8> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<2xi32>
  %s = arith.trunci %si : tensor<2xi32> to tensor<2xi8>
  %x = arith.addi %arg0, %s : tensor<2xi8>
  %e = flow.tensor.empty : tensor<8xi8>
  %y = flow.collective.all_gather si8, %e, %x, %channel : (tensor<8xi8>, tensor<2xi8>, !flow.channel) -> %e as tensor<8xi8>
  return %y : tensor<8xi8>
}

func.func @reduce_scatter_4_i8(%arg0: tensor<4x2xi8>) -> tensor<1x2xi8> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4x2xi32>
  %s = arith.trunci %si : tensor<4x2xi32> to tensor<4x2xi8>
  %x = arith.addi %arg0, %s : tensor<4x2xi8>
  %e = flow.tensor.empty : tensor<1x2xi8>
  %y = flow.collective.reduce_scatter sum, si8, %e, %x, %channel : (tensor<1x2xi8>, tensor<4x2xi8>, !flow.channel) -> %e as tensor<1x2xi8>
  return %y : tensor<1x2xi8>
}

func.func @all_to_all_f32(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %y = flow.collective.all_to_all f32, %e, %x, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @send_recv_ring_f32(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %n = flow.channel.count %channel : index
  %c1 = arith.constant 1 : index
  %r1 = arith.addi %r, %c1 : index
  %to = arith.remui %r1, %n : index
  %rn = arith.addi %r, %n : index
  %rm = arith.subi %rn, %c1 : index
  %from = arith.remui %rm, %n : index
  %y = flow.collective.send_recv f32, %e, %x, %channel, %to, %from : (tensor<4xf32>, tensor<4xf32>, !flow.channel, index, index) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @all_to_all_i64(%arg0: tensor<4xi64>) -> tensor<4xi64> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.extsi %si : tensor<4xi32> to tensor<4xi64>
  %x = arith.addi %arg0, %s : tensor<4xi64>
  %e = flow.tensor.empty : tensor<4xi64>
  %y = flow.collective.all_to_all si64, %e, %x, %channel : (tensor<4xi64>, tensor<4xi64>, !flow.channel) -> %e as tensor<4xi64>
  return %y : tensor<4xi64>
}

func.func @send_recv_ring_i64(%arg0: tensor<4xi64>) -> tensor<4xi64> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.extsi %si : tensor<4xi32> to tensor<4xi64>
  %x = arith.addi %arg0, %s : tensor<4xi64>
  %e = flow.tensor.empty : tensor<4xi64>
  %n = flow.channel.count %channel : index
  %c1 = arith.constant 1 : index
  %r1 = arith.addi %r, %c1 : index
  %to = arith.remui %r1, %n : index
  %rn = arith.addi %r, %n : index
  %rm = arith.subi %rn, %c1 : index
  %from = arith.remui %rm, %n : index
  %y = flow.collective.send_recv si64, %e, %x, %channel, %to, %from : (tensor<4xi64>, tensor<4xi64>, !flow.channel, index, index) -> %e as tensor<4xi64>
  return %y : tensor<4xi64>
}

func.func @all_to_all_f16(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf16>
  %x = arith.addf %arg0, %s : tensor<4xf16>
  %e = flow.tensor.empty : tensor<4xf16>
  %y = flow.collective.all_to_all f16, %e, %x, %channel : (tensor<4xf16>, tensor<4xf16>, !flow.channel) -> %e as tensor<4xf16>
  return %y : tensor<4xf16>
}

func.func @send_recv_ring_f16(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf16>
  %x = arith.addf %arg0, %s : tensor<4xf16>
  %e = flow.tensor.empty : tensor<4xf16>
  %n = flow.channel.count %channel : index
  %c1 = arith.constant 1 : index
  %r1 = arith.addi %r, %c1 : index
  %to = arith.remui %r1, %n : index
  %rn = arith.addi %r, %n : index
  %rm = arith.subi %rn, %c1 : index
  %from = arith.remui %rm, %n : index
  %y = flow.collective.send_recv f16, %e, %x, %channel, %to, %from : (tensor<4xf16>, tensor<4xf16>, !flow.channel, index, index) -> %e as tensor<4xf16>
  return %y : tensor<4xf16>
}

func.func @split_all_reduce(%arg0: tensor<4xf32>) -> (tensor<4xf32>, index, index) {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %c2 = arith.constant 2 : index
  %color = arith.remui %r, %c2 : index
  %sub = flow.channel.split %channel, %color, %r : !flow.channel -> !flow.channel
  %sr = flow.channel.rank %sub : index
  %sn = flow.channel.count %sub : index
  %e = flow.tensor.empty : tensor<4xf32>
  %y = flow.collective.all_reduce sum, f32, %e, %x, %sub : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  return %y, %sr, %sn : tensor<4xf32>, index, index
}

func.func @scale_reduce_scale(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %channel = flow.channel.default : !flow.channel
  %r = flow.channel.rank %channel : index
  %ri = arith.index_cast %r : index to i32
  %si = flow.tensor.splat %ri : tensor<4xi32>
  %s = arith.sitofp %si : tensor<4xi32> to tensor<4xf32>
  %x = arith.addf %arg0, %s : tensor<4xf32>
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %a = arith.mulf %x, %two : tensor<4xf32>
  %e = flow.tensor.empty : tensor<4xf32>
  %y0 = flow.collective.all_reduce sum, f32, %e, %a, %channel : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %e as tensor<4xf32>
  %y = arith.addf %y0, %arg0 : tensor<4xf32>
  return %y : tensor<4xf32>
}
