// COMPILE: --compile-mode=vm
// Imports from @provider (imports_provider.vmfb), including an optional
// import the provider does not export and an optional import from a module
// that is never loaded. vm.call on an import uses the same `call` opcode
// as an internal call, with the import bit set in the function ordinal.
vm.module @consumer {
  vm.import private @provider.add(%a : i32, %b : i32) -> i32
  vm.import private @provider.scale(%a : i64, %k : i32) -> (i64, i32)
  vm.import private @provider.make_buffer(%len : i64, %fill : i32) -> !vm.buffer
  vm.import private @provider.length(%b : !vm.buffer) -> i64
  vm.import private @provider.bump() -> i32
  vm.import private @provider.fail_with(%code : i32)
  vm.import private optional @provider.absent(%a : i32) -> i32
  vm.import private optional @elsewhere.thing(%a : i32) -> i32

  vm.export @add
  vm.func @add(%a: i32, %b: i32) -> i32 {
    %r = vm.call @provider.add(%a, %b) : (i32, i32) -> i32
    vm.return %r : i32
  }
  vm.export @scale
  vm.func @scale(%a: i64, %k: i32) -> (i32, i64) {
    %r, %neg = vm.call @provider.scale(%a, %k) : (i64, i32) -> (i64, i32)
    vm.return %neg, %r : i32, i64
  }
  // A buffer made by the provider, inspected here and passed back.
  vm.export @buffer_round_trip
  vm.func @buffer_round_trip(%len: i64, %fill: i32) -> (i64, i64, i32) {
    %b = vm.call @provider.make_buffer(%len, %fill) : (i64, i32) -> !vm.buffer
    %l = vm.buffer.length %b : !vm.buffer -> i64
    %l2 = vm.call @provider.length(%b) : (!vm.buffer) -> i64
    %c0 = vm.const.i64 0
    %v = vm.buffer.load.i8.u %b[%c0] : !vm.buffer -> i32
    vm.return %l, %l2, %v : i64, i64, i32
  }
  // Passing null where the provider expects a buffer.
  vm.export @length_of_null
  vm.func @length_of_null() -> i64 {
    %n = vm.const.ref.zero : !vm.buffer
    %l = vm.call @provider.length(%n) : (!vm.buffer) -> i64
    vm.return %l : i64
  }
  // The provider's state persists across calls within one context.
  vm.export @bump_twice
  vm.func @bump_twice() -> (i32, i32) {
    %a = vm.call @provider.bump() : () -> i32
    %b = vm.call @provider.bump() : () -> i32
    vm.return %a, %b : i32, i32
  }
  // A failure inside the imported function propagates.
  vm.export @fail_in_import
  vm.func @fail_in_import(%code: i32) -> i32 {
    vm.call @provider.fail_with(%code) : (i32) -> ()
    %c7 = vm.const.i32 7
    vm.return %c7 : i32
  }
  // Which optional imports resolved (1) or not (0).
  vm.export @resolved
  vm.func @resolved() -> (i32, i32, i32) {
    %a = vm.import.resolved @provider.add : i32
    %b = vm.import.resolved @provider.absent : i32
    %c = vm.import.resolved @elsewhere.thing : i32
    vm.return %a, %b, %c : i32, i32, i32
  }
  // Guarded call: calls @provider.absent only if resolved, else -1.
  vm.export @call_if_resolved
  vm.func @call_if_resolved(%a: i32) -> i32 {
    %ok = vm.import.resolved @provider.absent : i32
    vm.cond_br %ok, ^call, ^skip
  ^call:
    %r = vm.call @provider.absent(%a) : (i32) -> i32
    vm.return %r : i32
  ^skip:
    %m1 = vm.const.i32 -1
    vm.return %m1 : i32
  }
  // Unguarded call of an unresolved optional import.
  vm.export @call_unresolved
  vm.func @call_unresolved(%a: i32) -> i32 {
    %r = vm.call @provider.absent(%a) : (i32) -> i32
    vm.return %r : i32
  }
}
