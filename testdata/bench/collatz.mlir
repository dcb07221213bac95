// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// A VM-only program written as a user would (no tensors, so no dispatch):
// the Collatz step counts of 1..n summed, two nested `scf.while` loops whose
// body is `remui`, `divui`, `muli`, `select`. The compiler lowers it to
// `rem.i32.u`, `cmp.nz.i32`, `div.i32.u`, `fma.i32`, `select.i32`, `add.i32`
// and branches with block arguments; `cargo xtask bench` runs n = 300000
// (35.7M inner trips).
func.func @collatz(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %r:2 = scf.while (%i = %c1, %total = %c0) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ule, %i, %n : i32
    scf.condition(%more) %i, %total : i32, i32
  } do {
  ^bb0(%i: i32, %total: i32):
    %s:2 = scf.while (%x = %i, %steps = %c0) : (i32, i32) -> (i32, i32) {
      %go = arith.cmpi ne, %x, %c1 : i32
      scf.condition(%go) %x, %steps : i32, i32
    } do {
    ^bb1(%x: i32, %steps: i32):
      %rem = arith.remui %x, %c2 : i32
      %odd = arith.cmpi ne, %rem, %c0 : i32
      %half = arith.divui %x, %c2 : i32
      %triple = arith.muli %x, %c3 : i32
      %up = arith.addi %triple, %c1 : i32
      %next = arith.select %odd, %up, %half : i32
      %steps1 = arith.addi %steps, %c1 : i32
      scf.yield %next, %steps1 : i32, i32
    }
    %total1 = arith.addi %total, %s#1 : i32
    %i1 = arith.addi %i, %c1 : i32
    scf.yield %i1, %total1 : i32, i32
  }
  return %r#1 : i32
}
