// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx --iree-vmvx-enable-microkernels
// Elementwise binary ops the VMVX microkernel lowering turns into
// vmvx.{add,sub,mul,div}.2d.f32 and vmvx.{add,sub,mul,and,or,xor,divs,divu,
// shl,shrs}.2d.i32 calls (arith.shrui stays in bytecode: 3.13 emits no
// vmvx.shru.2d.i32). Divisors are never zero and shift amounts stay below 32:
// upstream traps on the former and its C shifts are undefined for the latter.
func.func @float_ops(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %0 = arith.addf %a, %b : tensor<3x5xf32>
  %1 = arith.subf %a, %b : tensor<3x5xf32>
  %2 = arith.mulf %a, %b : tensor<3x5xf32>
  %3 = arith.divf %a, %b : tensor<3x5xf32>
  return %0, %1, %2, %3 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}
func.func @int_ops(%a: tensor<3x5xi32>, %b: tensor<3x5xi32>) -> (tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>) {
  %0 = arith.addi %a, %b : tensor<3x5xi32>
  %1 = arith.subi %a, %b : tensor<3x5xi32>
  %2 = arith.muli %a, %b : tensor<3x5xi32>
  %3 = arith.andi %a, %b : tensor<3x5xi32>
  %4 = arith.ori %a, %b : tensor<3x5xi32>
  %5 = arith.xori %a, %b : tensor<3x5xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>
}
func.func @div_ops(%a: tensor<3x5xi32>, %b: tensor<3x5xi32>) -> (tensor<3x5xi32>, tensor<3x5xi32>) {
  %0 = arith.divsi %a, %b : tensor<3x5xi32>
  %1 = arith.divui %a, %b : tensor<3x5xi32>
  return %0, %1 : tensor<3x5xi32>, tensor<3x5xi32>
}
func.func @shift_ops(%a: tensor<3x5xi32>, %b: tensor<3x5xi32>) -> (tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>) {
  %0 = arith.shli %a, %b : tensor<3x5xi32>
  %1 = arith.shrsi %a, %b : tensor<3x5xi32>
  %2 = arith.shrui %a, %b : tensor<3x5xi32>
  return %0, %1, %2 : tensor<3x5xi32>, tensor<3x5xi32>, tensor<3x5xi32>
}
