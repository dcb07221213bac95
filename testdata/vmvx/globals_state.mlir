// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// Mutable util.global state: a tensor<i32> counter incremented twice in one
// call, a float accumulator updated in place then read back, and a function
// that only reads the initial value of a global.
util.global private mutable @counter = dense<0> : tensor<i32>
util.global private mutable @acc = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
func.func @bump_twice(%d: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %c = util.global.load @counter : tensor<i32>
  %n = arith.addi %c, %d : tensor<i32>
  util.global.store %n, @counter : tensor<i32>
  %c2 = util.global.load @counter : tensor<i32>
  %n2 = arith.addi %c2, %d : tensor<i32>
  util.global.store %n2, @counter : tensor<i32>
  %r = util.global.load @counter : tensor<i32>
  return %n, %r : tensor<i32>, tensor<i32>
}
func.func @accumulate(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = util.global.load @acc : tensor<4xf32>
  %s = arith.addf %a, %x : tensor<4xf32>
  util.global.store %s, @acc : tensor<4xf32>
  %m = arith.mulf %s, %x : tensor<4xf32>
  util.global.store %m, @acc : tensor<4xf32>
  %r = util.global.load @acc : tensor<4xf32>
  return %s, %r : tensor<4xf32>, tensor<4xf32>
}
func.func @read_acc() -> tensor<4xf32> {
  %a = util.global.load @acc : tensor<4xf32>
  return %a : tensor<4xf32>
}
func.func @read_counter() -> tensor<i32> {
  %a = util.global.load @counter : tensor<i32>
  return %a : tensor<i32>
}
