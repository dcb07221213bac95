// COMPILE: --compile-mode=vm
// A fill of a buffer allocated with memory types %memory and usage %usage,
// bound to binding table slot 0 and submitted with
// hal.device.queue.execute.indirect (@fill_slot), or bound directly
// (@fill_direct). Upstream checks at submission (slots) or recording
// (direct) that the device's allocator lets its queue use the buffer: a
// heap buffer must be device-visible (PERMISSION_DENIED "... allocator
// compatibility mismatch ..." otherwise). Returns 1 once the fill is done.
vm.module @queue_compatibility {
  vm.import private @hal.devices.get(%index : i32) -> !vm.ref<!hal.device>
  vm.import private @hal.device.allocator(%device : !vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
  vm.import private @hal.allocator.allocate(%allocator : !vm.ref<!hal.allocator>, %queue_affinity : i64, %memory_types : i32, %buffer_usage : i32, %allocation_size : i64) -> !vm.ref<!hal.buffer>
  vm.import private @hal.command_buffer.create(%device : !vm.ref<!hal.device>, %modes : i32, %command_categories : i32, %queue_affinity : i64, %binding_capacity : i32) -> !vm.ref<!hal.command_buffer>
  vm.import private @hal.command_buffer.fill_buffer(%command_buffer : !vm.ref<!hal.command_buffer>, %target_buffer : !vm.ref<!hal.buffer>, %target_offset : i64, %length : i64, %target_buffer_slot : i32, %pattern : i64, %pattern_length : i32, %flags : i64)
  vm.import private @hal.command_buffer.finalize(%command_buffer : !vm.ref<!hal.command_buffer>)
  vm.import private @hal.fence.create(%device : !vm.ref<!hal.device>, %flags : i64) -> !vm.ref<!hal.fence>
  vm.import private @hal.fence.await(%timeout_millis : i32, %flags : i64, %fences : !vm.ref<!hal.fence> ...) -> i32 attributes {vm.yield}
  vm.import private @hal.device.queue.execute(%device : !vm.ref<!hal.device>, %queue_affinity : i64, %wait_fence : !vm.ref<!hal.fence>, %signal_fence : !vm.ref<!hal.fence>, %command_buffer : !vm.ref<!hal.command_buffer>, %flags : i64)
  vm.import private @hal.device.queue.execute.indirect(%device : !vm.ref<!hal.device>, %queue_affinity : i64, %wait_fence : !vm.ref<!hal.fence>, %signal_fence : !vm.ref<!hal.fence>, %command_buffer : !vm.ref<!hal.command_buffer>, %flags : i64, %binding_table : tuple<!vm.ref<!hal.buffer>, i64, i64> ...)

  vm.export @fill_slot
  vm.func @fill_slot(%memory: i32, %usage: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c3 = vm.const.i32 3
    %i0 = vm.const.i64 0
    %i16 = vm.const.i64 16
    %pattern = vm.const.i64 42
    %any = vm.const.i64 -1
    %null_buffer = vm.const.ref.zero : !vm.ref<!hal.buffer>
    %null_fence = vm.const.ref.zero : !vm.ref<!hal.fence>
    %device = vm.call @hal.devices.get(%c0) : (i32) -> !vm.ref<!hal.device>
    %allocator = vm.call @hal.device.allocator(%device) : (!vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
    %buffer = vm.call @hal.allocator.allocate(%allocator, %any, %memory, %usage, %i16) : (!vm.ref<!hal.allocator>, i64, i32, i32, i64) -> !vm.ref<!hal.buffer>
    %cb = vm.call @hal.command_buffer.create(%device, %c1, %c3, %any, %c1) : (!vm.ref<!hal.device>, i32, i32, i64, i32) -> !vm.ref<!hal.command_buffer>
    vm.call @hal.command_buffer.fill_buffer(%cb, %null_buffer, %i0, %i16, %c0, %pattern, %c1, %i0) : (!vm.ref<!hal.command_buffer>, !vm.ref<!hal.buffer>, i64, i64, i32, i64, i32, i64) -> ()
    vm.call @hal.command_buffer.finalize(%cb) : (!vm.ref<!hal.command_buffer>) -> ()
    %signal = vm.call @hal.fence.create(%device, %i0) : (!vm.ref<!hal.device>, i64) -> !vm.ref<!hal.fence>
    vm.call.variadic @hal.device.queue.execute.indirect(%device, %any, %null_fence, %signal, %cb, %i0, [(%buffer, %i0, %i16)]) : (!vm.ref<!hal.device>, i64, !vm.ref<!hal.fence>, !vm.ref<!hal.fence>, !vm.ref<!hal.command_buffer>, i64, tuple<!vm.ref<!hal.buffer>, i64, i64> ...) -> ()
    %timeout = vm.const.i32 -1
    %status = vm.call.variadic @hal.fence.await(%timeout, %i0, [%signal]) : (i32, i64, !vm.ref<!hal.fence> ...) -> i32
    vm.return %c1 : i32
  }

  vm.export @fill_direct
  vm.func @fill_direct(%memory: i32, %usage: i32) -> i32 {
    %c0 = vm.const.i32 0
    %c1 = vm.const.i32 1
    %c3 = vm.const.i32 3
    %i0 = vm.const.i64 0
    %i16 = vm.const.i64 16
    %pattern = vm.const.i64 42
    %any = vm.const.i64 -1
    %null_fence = vm.const.ref.zero : !vm.ref<!hal.fence>
    %device = vm.call @hal.devices.get(%c0) : (i32) -> !vm.ref<!hal.device>
    %allocator = vm.call @hal.device.allocator(%device) : (!vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
    %buffer = vm.call @hal.allocator.allocate(%allocator, %any, %memory, %usage, %i16) : (!vm.ref<!hal.allocator>, i64, i32, i32, i64) -> !vm.ref<!hal.buffer>
    %cb = vm.call @hal.command_buffer.create(%device, %c1, %c3, %any, %c0) : (!vm.ref<!hal.device>, i32, i32, i64, i32) -> !vm.ref<!hal.command_buffer>
    vm.call @hal.command_buffer.fill_buffer(%cb, %buffer, %i0, %i16, %c0, %pattern, %c1, %i0) : (!vm.ref<!hal.command_buffer>, !vm.ref<!hal.buffer>, i64, i64, i32, i64, i32, i64) -> ()
    vm.call @hal.command_buffer.finalize(%cb) : (!vm.ref<!hal.command_buffer>) -> ()
    %signal = vm.call @hal.fence.create(%device, %i0) : (!vm.ref<!hal.device>, i64) -> !vm.ref<!hal.fence>
    vm.call @hal.device.queue.execute(%device, %any, %null_fence, %signal, %cb, %i0) : (!vm.ref<!hal.device>, i64, !vm.ref<!hal.fence>, !vm.ref<!hal.fence>, !vm.ref<!hal.command_buffer>, i64) -> ()
    %timeout = vm.const.i32 -1
    %status = vm.call.variadic @hal.fence.await(%timeout, %i0, [%signal]) : (i32, i64, !vm.ref<!hal.fence> ...) -> i32
    vm.return %c1 : i32
  }
}
