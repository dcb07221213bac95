// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Traces its arguments (hal.buffer_view.trace), for HalModuleDebugSink.
func.func @trace_args(%arg0: tensor<2xi32>, %arg1: tensor<3xi32>) {
  flow.tensor.trace "debug_sink_test" = [
    %arg0: tensor<2xi32>,
    %arg1: tensor<3xi32>
  ]
  return
}
