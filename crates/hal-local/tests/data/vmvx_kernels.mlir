// COMPILE: --compile-mode=vm
// Hand-written VMVX kernels (the `0rrriiiiiiiii_v` dispatch ABI) for
// tests/vmvx.rs: a grid computation, failures, a kernel keeping its binding,
// local memory, and a write to the read-only constants.
vm.module @kernels {
  vm.global.ref private mutable @kept : !vm.buffer

  // out[id] = in[id] * constants[0] + id, id = linear workgroup id.
  vm.export @scale
  vm.func @scale(%local: !vm.buffer, %constants: !vm.buffer, %bindings: !vm.list<!vm.buffer>,
                 %x: i32, %y: i32, %z: i32, %sx: i32, %sy: i32, %sz: i32,
                 %cx: i32, %cy: i32, %cz: i32) attributes {iree.reflection = {binding_count = "2", constant_count = "1"}} {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c0_64 = vm.const.i64 0
    %in = vm.list.get.ref %bindings, %c0 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    %out = vm.list.get.ref %bindings, %c1 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    %k = vm.buffer.load.i32 %constants[%c0_64] : !vm.buffer -> i32
    %yx = vm.mul.i32 %y, %cx : i32
    %zxy = vm.mul.i32 %cx, %cy : i32
    %zz = vm.mul.i32 %z, %zxy : i32
    %id0 = vm.add.i32 %x, %yx : i32
    %id = vm.add.i32 %id0, %zz : i32
    %id64 = vm.ext.i32.i64.s %id : i32 -> i64
    %v = vm.buffer.load.i32 %in[%id64] : !vm.buffer -> i32
    %m = vm.mul.i32 %v, %k : i32
    %r = vm.add.i32 %m, %id : i32
    vm.buffer.store.i32 %r, %out[%id64] : i32 -> !vm.buffer
    vm.return
  }

  // Fails with the status code in constants[0].
  vm.export @fail
  vm.func @fail(%local: !vm.buffer, %constants: !vm.buffer, %bindings: !vm.list<!vm.buffer>,
                %x: i32, %y: i32, %z: i32, %sx: i32, %sy: i32, %sz: i32,
                %cx: i32, %cy: i32, %cz: i32) attributes {iree.reflection = {binding_count = "0", constant_count = "1"}} {
    %c0_64 = vm.const.i64 0
    %code = vm.buffer.load.i32 %constants[%c0_64] : !vm.buffer -> i32
    vm.fail %code, "kernel failed on purpose"
  }

  // Reads past the end of binding 0.
  vm.export @oob
  vm.func @oob(%local: !vm.buffer, %constants: !vm.buffer, %bindings: !vm.list<!vm.buffer>,
               %x: i32, %y: i32, %z: i32, %sx: i32, %sy: i32, %sz: i32,
               %cx: i32, %cy: i32, %cz: i32) attributes {iree.reflection = {binding_count = "1"}} {
    %c0 = vm.const.i32 0
    %in = vm.list.get.ref %bindings, %c0 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    %len = vm.buffer.length %in : !vm.buffer -> i64
    %v = vm.buffer.load.i8.u %in[%len] : !vm.buffer -> i32
    %c0_64 = vm.const.i64 0
    vm.buffer.store.i8 %v, %in[%c0_64] : i32 -> !vm.buffer
    vm.return
  }

  // Keeps binding 0 in a global.
  vm.export @keep
  vm.func @keep(%local: !vm.buffer, %constants: !vm.buffer, %bindings: !vm.list<!vm.buffer>,
                %x: i32, %y: i32, %z: i32, %sx: i32, %sy: i32, %sz: i32,
                %cx: i32, %cy: i32, %cz: i32) attributes {iree.reflection = {binding_count = "1"}} {
    %c0 = vm.const.i32 0
    %in = vm.list.get.ref %bindings, %c0 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    vm.global.store.ref %in, @kept : !vm.buffer
    vm.return
  }

  // Uses 4096 bytes of local memory: stores the workgroup id there, copies
  // it to out[id], and writes the local memory length to out[count].
  vm.export @local
  vm.func @local(%local: !vm.buffer, %constants: !vm.buffer, %bindings: !vm.list<!vm.buffer>,
                 %x: i32, %y: i32, %z: i32, %sx: i32, %sy: i32, %sz: i32,
                 %cx: i32, %cy: i32, %cz: i32) attributes {iree.reflection = {binding_count = "1", local_memory = "4096"}} {
    %c0 = vm.const.i32 0
    %c100_64 = vm.const.i64 100
    %out = vm.list.get.ref %bindings, %c0 : (!vm.list<!vm.buffer>, i32) -> !vm.buffer
    vm.buffer.store.i32 %x, %local[%c100_64] : i32 -> !vm.buffer
    %v = vm.buffer.load.i32 %local[%c100_64] : !vm.buffer -> i32
    %x64 = vm.ext.i32.i64.s %x : i32 -> i64
    vm.buffer.store.i32 %v, %out[%x64] : i32 -> !vm.buffer
    %len = vm.buffer.length %local : !vm.buffer -> i64
    %len32 = vm.trunc.i64.i32 %len : i64 -> i32
    %cx64 = vm.ext.i32.i64.s %cx : i32 -> i64
    vm.buffer.store.i32 %len32, %out[%cx64] : i32 -> !vm.buffer
    vm.return
  }

  // Writes to the read-only constants buffer.
  vm.export @write_constants
  vm.func @write_constants(%local: !vm.buffer, %constants: !vm.buffer, %bindings: !vm.list<!vm.buffer>,
                 %x: i32, %y: i32, %z: i32, %sx: i32, %sy: i32, %sz: i32,
                 %cx: i32, %cy: i32, %cz: i32) attributes {iree.reflection = {constant_count = "1"}} {
    %c0_64 = vm.const.i64 0
    vm.buffer.store.i32 %x, %constants[%c0_64] : i32 -> !vm.buffer
    vm.return
  }
}
