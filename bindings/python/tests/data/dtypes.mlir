// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-input-demote-f64-to-f32=false
// Element types in and out of calls: each function adds its arguments
// (or negates, or selects), so the data goes through a dispatch.
func.func @add_f16(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = arith.addf %a, %b : tensor<4xf16>
  return %0 : tensor<4xf16>
}
func.func @add_bf16(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = arith.addf %a, %b : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
func.func @add_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @add_f64(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %0 = arith.addf %a, %b : tensor<4xf64>
  return %0 : tensor<4xf64>
}
func.func @add_i8(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %0 = arith.addi %a, %b : tensor<4xi8>
  return %0 : tensor<4xi8>
}
func.func @add_i16(%a: tensor<4xi16>, %b: tensor<4xi16>) -> tensor<4xi16> {
  %0 = arith.addi %a, %b : tensor<4xi16>
  return %0 : tensor<4xi16>
}
func.func @add_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arith.addi %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}
func.func @add_i64(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = arith.addi %a, %b : tensor<4xi64>
  return %0 : tensor<4xi64>
}
func.func @xor_i1(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = arith.xori %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}
// Dynamic shapes: |x| of any 2-D f32 array.
func.func @abs_dynamic(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = math.absf %a : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
// Scalars of every VM type.
func.func @scalars(%a: i32, %b: i64, %c: f32, %d: f64) -> (i64, f64) {
  %a64 = arith.extsi %a : i32 to i64
  %s = arith.addi %a64, %b : i64
  %c64 = arith.extf %c : f32 to f64
  %t = arith.mulf %c64, %d : f64
  return %s, %t : i64, f64
}
// No results.
func.func @nothing(%a: tensor<4xf32>) {
  return
}
// Busy for a while: sums 0..n-1 in a loop (tests that calls release the
// GIL).
func.func @spin(%n: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %ub = arith.index_cast %n : i64 to index
  %sum = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %zero) -> (i64) {
    %ii = arith.index_cast %i : index to i64
    %next = arith.addi %acc, %ii : i64
    scf.yield %next : i64
  }
  return %sum : i64
}
