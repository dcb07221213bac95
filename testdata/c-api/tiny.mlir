// COMPILE: --iree-execution-model=host-only
// The per-call cost benchmark (crates/c-api/benches/call.rs): a function
// whose body is one add, so a call measures the call path itself.
func.func @add(%a: i32, %b: i32) -> i32 {
  %sum = arith.addi %a, %b : i32
  return %sum : i32
}
