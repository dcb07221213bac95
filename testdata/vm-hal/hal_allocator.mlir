// COMPILE: --compile-mode=vm
// hal.allocator.select: picks the first candidate device (and its queue
// affinity) whose allocator can allocate buffers of the given memory types
// and usage; here one candidate, the default device, with affinity %affinity.
vm.module @hal_allocator {
  vm.import private @hal.devices.get(%index : i32) -> !vm.ref<!hal.device>
  vm.import private @hal.allocator.select(%memory_types : i32, %buffer_usage : i32, %flags : i64, %from : tuple<!vm.ref<!hal.device>, i64> ...) -> (!vm.ref<!hal.device>, i64)
  vm.import private @hal.device.allocator(%device : !vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
  vm.import private @hal.allocator.allocate(%allocator : !vm.ref<!hal.allocator>, %queue_affinity : i64, %memory_types : i32, %buffer_usage : i32, %allocation_size : i64) -> !vm.ref<!hal.buffer>
  vm.import private @hal.buffer.length(%buffer : !vm.ref<!hal.buffer>) -> i64

  // Returns whether a device came back, the affinity, and the length of
  // a buffer of %size bytes allocated from it.
  vm.export @select
  vm.func @select(%memory_types: i32, %usage: i32, %affinity: i64, %size: i64) -> (i32, i64, i64) {
    %c0 = vm.const.i32 0
    %f0 = vm.const.i64 0
    %device = vm.call @hal.devices.get(%c0) : (i32) -> !vm.ref<!hal.device>
    %selected, %queue = vm.call.variadic @hal.allocator.select(%memory_types, %usage, %f0, [(%device, %affinity)]) : (i32, i32, i64, tuple<!vm.ref<!hal.device>, i64> ...) -> (!vm.ref<!hal.device>, i64)
    %nz = vm.cmp.nz.ref %selected : !vm.ref<!hal.device>
    %allocator = vm.call @hal.device.allocator(%selected) : (!vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
    %buffer = vm.call @hal.allocator.allocate(%allocator, %queue, %memory_types, %usage, %size) : (!vm.ref<!hal.allocator>, i64, i32, i32, i64) -> !vm.ref<!hal.buffer>
    %len = vm.call @hal.buffer.length(%buffer) : (!vm.ref<!hal.buffer>) -> i64
    vm.return %nz, %queue, %len : i32, i64, i64
  }
}
