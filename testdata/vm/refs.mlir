// COMPILE: --compile-mode=vm
// Reference handling: null refs, ref comparison, casts between !vm.ref<?>
// and typed refs, ref block arguments (assign.ref), and refs passed in
// from iree-run-module (`(null)` and buffer views).
vm.module @refs {
  // Null and non-null comparisons.
  vm.export @compare
  vm.func @compare(%len: i64) -> (i32, i32, i32, i32, i32, i32) {
    %c1 = vm.const.i32 1
    %a = vm.buffer.alloc %len, %c1 : !vm.buffer
    %b = vm.buffer.alloc %len, %c1 : !vm.buffer
    %n = vm.const.ref.zero : !vm.buffer
    %a_nz = vm.cmp.nz.ref %a : !vm.buffer
    %n_nz = vm.cmp.nz.ref %n : !vm.buffer
    %aa = vm.cmp.eq.ref %a, %a : !vm.buffer
    %ab = vm.cmp.eq.ref %a, %b : !vm.buffer
    %an = vm.cmp.ne.ref %a, %n : !vm.buffer
    %bb = vm.cmp.ne.ref %b, %b : !vm.buffer
    vm.return %a_nz, %n_nz, %aa, %ab, %an, %bb : i32, i32, i32, i32, i32, i32
  }

  // Comparing refs chosen by arguments (0: a, 1: b, other: null), so the
  // compiler cannot fold them.
  vm.export @compare_picked
  vm.func @compare_picked(%i: i32, %j: i32) -> (i32, i32) {
    %c1 = vm.const.i32 1
    %c4 = vm.const.i64 4
    %a = vm.buffer.alloc %c4, %c1 : !vm.buffer
    %b = vm.buffer.alloc %c4, %c1 : !vm.buffer
    %n = vm.const.ref.zero : !vm.buffer
    %i_is_0 = vm.cmp.eq.i32 %i, %c1 : i32
    %j_is_0 = vm.cmp.eq.i32 %j, %c1 : i32
    %i_null = vm.cmp.lt.i32.s %c1, %i : i32
    %j_null = vm.cmp.lt.i32.s %c1, %j : i32
    %x0 = vm.select.ref %i_is_0, %b, %a : !vm.buffer
    %y0 = vm.select.ref %j_is_0, %b, %a : !vm.buffer
    %x = vm.select.ref %i_null, %n, %x0 : !vm.buffer
    %y = vm.select.ref %j_null, %n, %y0 : !vm.buffer
    %eq = vm.cmp.eq.ref %x, %y : !vm.buffer
    %ne = vm.cmp.ne.ref %x, %y : !vm.buffer
    vm.return %eq, %ne : i32, i32
  }

  // Refs as block arguments through a loop: rotates three buffers %n times
  // and returns the length of the one in the first slot.
  vm.export @rotate
  vm.func @rotate(%n: i32) -> i64 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %l1 = vm.const.i64 1
    %l2 = vm.const.i64 2
    %l3 = vm.const.i64 3
    %a = vm.buffer.alloc %l1, %c1 : !vm.buffer
    %b = vm.buffer.alloc %l2, %c1 : !vm.buffer
    %c = vm.buffer.alloc %l3, %c1 : !vm.buffer
    vm.br ^loop(%a, %b, %c, %n : !vm.buffer, !vm.buffer, !vm.buffer, i32)
  ^loop(%x: !vm.buffer, %y: !vm.buffer, %z: !vm.buffer, %k: i32):
    %done = vm.cmp.eq.i32 %k, %c0 : i32
    vm.cond_br %done, ^exit(%x : !vm.buffer), ^next
  ^next:
    %k2 = vm.sub.i32 %k, %c1 : i32
    vm.br ^loop(%y, %z, %x, %k2 : !vm.buffer, !vm.buffer, !vm.buffer, i32)
  ^exit(%r: !vm.buffer):
    %len = vm.buffer.length %r : !vm.buffer -> i64
    vm.return %len : i64
  }

  // Casting a typed ref to !vm.ref<?> and back.
  vm.export @cast_round_trip
  vm.func @cast_round_trip(%len: i64) -> (i64, i32) {
    %c1 = vm.const.i32 1
    %a = vm.buffer.alloc %len, %c1 : !vm.buffer
    %any = vm.cast.ref.any %a : !vm.buffer -> !vm.ref<?>
    %back = vm.cast.any.ref %any : !vm.ref<?> -> !vm.buffer
    %l = vm.buffer.length %back : !vm.buffer -> i64
    %same = vm.cmp.eq.ref %a, %back : !vm.buffer
    vm.return %l, %same : i64, i32
  }

  // Widening a typed ref to !vm.ref<?> while the typed one stays live:
  // encoded as assign.ref into a separate register.
  vm.export @widen_keep
  vm.func @widen_keep(%len: i64) -> (!vm.ref<?>, i64) {
    %c1 = vm.const.i32 1
    %a = vm.buffer.alloc %len, %c1 : !vm.buffer
    %any = vm.cast.ref.any %a : !vm.buffer -> !vm.ref<?>
    %l = vm.buffer.length %a : !vm.buffer -> i64
    vm.return %any, %l : !vm.ref<?>, i64
  }
  // An explicit vm.assign.ref copy; both copies stay usable.
  vm.export @assign
  vm.func @assign(%len: i64) -> (i64, i64, i32) {
    %c1 = vm.const.i32 1
    %a = vm.buffer.alloc %len, %c1 : !vm.buffer
    %b = vm.assign.ref %a : !vm.buffer -> !vm.buffer
    %la = vm.buffer.length %a : !vm.buffer -> i64
    %lb = vm.buffer.length %b : !vm.buffer -> i64
    %same = vm.cmp.eq.ref %a, %b : !vm.buffer
    vm.return %la, %lb, %same : i64, i64, i32
  }

  // Untyped ref arguments from the command line, cast to a buffer: works for
  // null, fails for a buffer view (wrong type).
  vm.export @arg_as_buffer
  vm.func @arg_as_buffer(%r: !vm.ref<?>) -> i32 {
    %b = vm.cast.any.ref %r : !vm.ref<?> -> !vm.buffer
    %nz = vm.cmp.nz.ref %b : !vm.buffer
    vm.return %nz : i32
  }
  // Cast to a list instead.
  vm.export @arg_as_list
  vm.func @arg_as_list(%r: !vm.ref<?>) -> i32 {
    %l = vm.cast.any.ref %r : !vm.ref<?> -> !vm.list<?>
    %nz = vm.cmp.nz.ref %l : !vm.list<?>
    vm.return %nz : i32
  }
  // Untyped ref passed through unchanged and returned.
  vm.export @identity
  vm.func @identity(%r: !vm.ref<?>) -> !vm.ref<?> {
    vm.return %r : !vm.ref<?>
  }
  // Two ref arguments compared.
  vm.export @same_ref
  vm.func @same_ref(%a: !vm.ref<?>, %b: !vm.ref<?>) -> (i32, i32, i32) {
    %eq = vm.cmp.eq.ref %a, %b : !vm.ref<?>
    %anz = vm.cmp.nz.ref %a : !vm.ref<?>
    %bnz = vm.cmp.nz.ref %b : !vm.ref<?>
    vm.return %eq, %anz, %bnz : i32, i32, i32
  }
  // A typed buffer argument.
  vm.export @buffer_arg
  vm.func @buffer_arg(%b: !vm.buffer) -> i32 {
    %nz = vm.cmp.nz.ref %b : !vm.buffer
    vm.return %nz : i32
  }
  // Returns null refs of two types.
  vm.export @return_nulls
  vm.func @return_nulls() -> (!vm.buffer, !vm.ref<?>) {
    %a = vm.const.ref.zero : !vm.buffer
    %b = vm.const.ref.zero : !vm.ref<?>
    vm.return %a, %b : !vm.buffer, !vm.ref<?>
  }
  // The same ref returned twice.
  vm.export @return_twice
  vm.func @return_twice(%len: i64) -> (!vm.buffer, !vm.buffer) {
    %c1 = vm.const.i32 1
    %a = vm.buffer.alloc %len, %c1 : !vm.buffer
    vm.return %a, %a : !vm.buffer, !vm.buffer
  }
}
