// COMPILE: --compile-mode=vm
// Minimal inputs for the bytecode verifier's register checks (issue #31):
// crates/vm-bytecode/tests/verifier.rs patches this module's register counts
// and return registers at run time and expects upstream's status codes.
vm.module @registers {
  // Two i32 arguments: i32 register count 2.
  vm.export @add2
  vm.func @add2(%a: i32, %b: i32) -> i32 {
    %r = vm.add.i32 %a, %b : i32
    vm.return %r : i32
  }
  // One i64 argument returned as is: `vm.return` of the pair at register 0.
  vm.export @wide
  vm.func @wide(%a: i64) -> i64 {
    vm.return %a : i64
  }
}
