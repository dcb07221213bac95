// COMPILE: --iree-execution-model=host-only
// Uses the `dyn` module of the C API tests' dynamic module library
// (crates/c-api/tests/c/dynamic_module.c, loaded with
// --module=libdyn.so?base=N): a scalar import, a value set by the
// library's parameters, and an import that fails.
module @user {
  func.func private @dyn.add(i32, i32) -> i32
  func.func private @dyn.base() -> i32
  func.func private @dyn.fail()

  // %a plus the library's `base` parameter.
  func.func @add_base(%a: i32) -> i32 {
    %base = call @dyn.base() : () -> i32
    %sum = call @dyn.add(%a, %base) : (i32, i32) -> i32
    return %sum : i32
  }

  func.func @fail() {
    call @dyn.fail() : () -> ()
    return
  }
}
