// COMPILE: --compile-mode=vm
// hal.buffer_view.create over bytes [%offset, %offset + %length) of a
// %size-byte buffer, viewed as %d0 x %d1 x <element type %type> in encoding
// %encoding: upstream checks a dense view's byte length against the
// (sub)buffer it views (OUT_OF_RANGE "buffer view byte length N exceeds
// backing buffer byte length M").
vm.module @buffer_view_create {
  vm.import private @hal.devices.get(%index : i32) -> !vm.ref<!hal.device>
  vm.import private @hal.device.allocator(%device : !vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
  vm.import private @hal.allocator.allocate(%allocator : !vm.ref<!hal.allocator>, %queue_affinity : i64, %memory_types : i32, %buffer_usage : i32, %allocation_size : i64) -> !vm.ref<!hal.buffer>
  vm.import private @hal.buffer_view.create(%buffer : !vm.ref<!hal.buffer>, %source_offset : i64, %source_length : i64, %element_type : i32, %encoding_type : i32, %shape : i64 ...) -> !vm.ref<!hal.buffer_view>
  vm.import private @hal.buffer_view.dim(%buffer_view : !vm.ref<!hal.buffer_view>, %index : i32) -> i64

  // Returns the view's outer dimension.
  vm.export @create
  vm.func @create(%size: i64, %offset: i64, %length: i64, %type: i32, %encoding: i32, %d0: i64, %d1: i64) -> i64 {
    %c0 = vm.const.i32 0
    %any = vm.const.i64 -1
    %memory = vm.const.i32 70
    %usage = vm.const.i32 3
    %device = vm.call @hal.devices.get(%c0) : (i32) -> !vm.ref<!hal.device>
    %allocator = vm.call @hal.device.allocator(%device) : (!vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
    %buffer = vm.call @hal.allocator.allocate(%allocator, %any, %memory, %usage, %size) : (!vm.ref<!hal.allocator>, i64, i32, i32, i64) -> !vm.ref<!hal.buffer>
    %view = vm.call.variadic @hal.buffer_view.create(%buffer, %offset, %length, %type, %encoding, [%d0, %d1]) : (!vm.ref<!hal.buffer>, i64, i64, i32, i32, i64 ...) -> !vm.ref<!hal.buffer_view>
    %dim = vm.call @hal.buffer_view.dim(%view, %c0) : (!vm.ref<!hal.buffer_view>, i32) -> i64
    vm.return %dim : i64
  }
}
