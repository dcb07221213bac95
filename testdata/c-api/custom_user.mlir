// COMPILE: --iree-execution-model=host-only
// Uses the `custom` module that the C API tests define in C
// (crates/c-api/tests/c/native_module.c): a ref type made in C, a byte
// buffer passed as a string, i32 and i64 arguments, and an optional import
// that the module leaves out (its fallback runs).
module @user {
  func.func private @custom.string.create(!util.buffer) -> !custom.string
  func.func private @custom.string.length(!custom.string) -> index attributes {
    vm.signature = (!vm.ref<!custom.string>) -> i64
  }
  func.func private @custom.string.print(!custom.string)
  func.func private @custom.add(i32, i64) -> i64
  func.func private @custom.string.shout(!custom.string) attributes {
    vm.fallback = @shout_fallback
  }
  func.func private @shout_fallback(%ignored: !custom.string) {
    %data = util.buffer.constant : !util.buffer = "(no shout)"
    %str = call @custom.string.create(%data) : (!util.buffer) -> !custom.string
    call @custom.string.print(%str) : (!custom.string) -> ()
    return
  }

  // Prints "hello" twice (directly and through the fallback's string) and
  // returns 7 + %n + 5.
  func.func @main(%n: i64) -> i64 {
    %data = util.buffer.constant : !util.buffer = "hello"
    %str = call @custom.string.create(%data) : (!util.buffer) -> !custom.string
    call @custom.string.print(%str) : (!custom.string) -> ()
    %length = call @custom.string.length(%str) : (!custom.string) -> index
    %length_i64 = arith.index_cast %length : index to i64
    call @custom.string.shout(%str) : (!custom.string) -> ()
    %seven = arith.constant 7 : i32
    %sum = call @custom.add(%seven, %n) : (i32, i64) -> i64
    %total = arith.addi %sum, %length_i64 : i64
    return %total : i64
  }

  // A string made by the C module, handed back to the caller.
  func.func @make() -> !custom.string {
    %data = util.buffer.constant : !util.buffer = "made in C"
    %str = call @custom.string.create(%data) : (!util.buffer) -> !custom.string
    return %str : !custom.string
  }
}
