// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// flow.tensor.trace: each trace prints `=== key ===`, every traced tensor in
// full, then an empty line, on stderr.
func.func @traced(%a: tensor<4xf32>, %b: tensor<2x3xi32>) -> tensor<4xf32> {
  flow.tensor.trace "inputs" = [%a : tensor<4xf32>, %b : tensor<2x3xi32>]
  %c = arith.addf %a, %a : tensor<4xf32>
  flow.tensor.trace "sum" = [%c : tensor<4xf32>]
  return %c : tensor<4xf32>
}

// More elements than the printed-output budget: traces are not elided.
func.func @large(%a: tensor<1500xi8>) -> tensor<1500xi8> {
  %b = arith.addi %a, %a : tensor<1500xi8>
  flow.tensor.trace "large" = [%b : tensor<1500xi8>]
  return %b : tensor<1500xi8>
}

// A dynamic shape and a scalar tensor.
func.func @dynamic(%a: tensor<?xf16>, %s: tensor<i64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf16>
  flow.tensor.trace "dyn" = [%a : tensor<?xf16>{%n}, %s : tensor<i64>]
  return
}
