// COMPILE: --compile-mode=vm
// Drives io_parameters.gather and io_parameters.scatter directly, with key
// and span tables built at run time, so cases can ask for any key, any
// range and malformed tables (the compiler only ever emits io_parameters.load
// for these programs).
//
// Key table entries (`{u32 offset, u32 length}` into "w_f32w_f16w_bignope"),
// picked by %key: 0 w_f32, 1 w_f16, 2 w_big, 3 nope (absent), 4 an offset
// past the key data, 5 a key running past its end.
vm.module @io_gather {
  vm.import private @hal.devices.get(%index : i32) -> !vm.ref<!hal.device>
  vm.import private @hal.device.allocator(%device : !vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
  vm.import private @hal.allocator.allocate(%allocator : !vm.ref<!hal.allocator>, %queue_affinity : i64, %memory_types : i32, %buffer_usage : i32, %allocation_size : i64) -> !vm.ref<!hal.buffer>
  vm.import private @hal.fence.create(%device : !vm.ref<!hal.device>, %flags : i64) -> !vm.ref<!hal.fence>
  vm.import private @hal.fence.await(%timeout_millis : i32, %flags : i64, %fences : !vm.ref<!hal.fence> ...) -> i32 attributes {vm.yield}
  vm.import private @hal.buffer_view.create(%buffer : !vm.ref<!hal.buffer>, %source_offset : i64, %source_length : i64, %element_type : i32, %encoding_type : i32, %shape : i64 ...) -> !vm.ref<!hal.buffer_view>
  vm.import private @io_parameters.gather(%device : !vm.ref<!hal.device>, %queue_affinity : i64, %wait_fence : !vm.ref<!hal.fence>, %signal_fence : !vm.ref<!hal.fence>, %source_scope : !vm.buffer, %target_buffer : !vm.ref<!hal.buffer>, %key_table : !vm.buffer, %key_data : !vm.buffer, %spans : !vm.buffer)
  vm.import private @io_parameters.scatter(%device : !vm.ref<!hal.device>, %queue_affinity : i64, %wait_fence : !vm.ref<!hal.fence>, %signal_fence : !vm.ref<!hal.fence>, %source_buffer : !vm.ref<!hal.buffer>, %target_scope : !vm.buffer, %key_table : !vm.buffer, %key_data : !vm.buffer, %spans : !vm.buffer)

  vm.rodata private @scope "model"
  vm.rodata private @keys "w_f32w_f16w_bignope"
  vm.rodata private @key_entries dense<[0, 5, 5, 5, 10, 5, 15, 4, 100, 1, 17, 5]> : tensor<12xi32>

  // A one-entry key table for key number %key.
  vm.func private @key_table(%key: i32) -> !vm.buffer {
    %c8 = vm.const.i64 8
    %c0 = vm.const.i64 0
    %c1 = vm.const.i32 1
    %table = vm.buffer.alloc %c8, %c1 : !vm.buffer
    %entries = vm.const.ref.rodata @key_entries : !vm.buffer
    %key64 = vm.ext.i32.i64.u %key : i32 -> i64
    %offset = vm.mul.i64 %key64, %c8 : i64
    vm.buffer.copy %entries, %offset, %table, %c0, %c8 : !vm.buffer -> !vm.buffer
    vm.return %table : !vm.buffer
  }

  // A span table of %bytes bytes whose first entry (if it fits) is
  // {%param_offset, %buffer_offset, %length}.
  vm.func private @span_table(%bytes: i64, %param_offset: i64, %buffer_offset: i64, %length: i64) -> !vm.buffer {
    %c1 = vm.const.i32 1
    %c0 = vm.const.i64 0
    %c1i = vm.const.i64 1
    %c2i = vm.const.i64 2
    %c24 = vm.const.i64 24
    %spans = vm.buffer.alloc %bytes, %c1 : !vm.buffer
    %fits = vm.cmp.lte.i64.s %c24, %bytes : i64
    vm.cond_br %fits, ^fill, ^done
  ^fill:
    vm.buffer.store.i64 %param_offset, %spans[%c0] : i64 -> !vm.buffer
    vm.buffer.store.i64 %buffer_offset, %spans[%c1i] : i64 -> !vm.buffer
    vm.buffer.store.i64 %length, %spans[%c2i] : i64 -> !vm.buffer
    vm.br ^done
  ^done:
    vm.return %spans : !vm.buffer
  }

  vm.func private @allocate(%size: i64) -> !vm.ref<!hal.buffer> {
    %c0 = vm.const.i32 0
    %any = vm.const.i64 -1
    %memory_types = vm.const.i32 50
    %usage = vm.const.i32 150998019
    %device = vm.call @hal.devices.get(%c0) : (i32) -> !vm.ref<!hal.device>
    %allocator = vm.call @hal.device.allocator(%device) : (!vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
    %buffer = vm.call @hal.allocator.allocate(%allocator, %any, %memory_types, %usage, %size) : (!vm.ref<!hal.allocator>, i64, i32, i32, i64) -> !vm.ref<!hal.buffer>
    vm.return %buffer : !vm.ref<!hal.buffer>
  }

  // Gathers one span of key %key into a fresh %size-byte buffer and
  // returns it as %size x i8. %scoped == 0 passes a null (empty) scope;
  // %span_bytes sizes the span table (24 per entry).
  vm.export @gather
  vm.func @gather(%key: i32, %param_offset: i64, %buffer_offset: i64, %length: i64, %size: i64, %scoped: i32, %span_bytes: i64) -> !vm.ref<!hal.buffer_view> {
    %c0 = vm.const.i32 0
    %f0 = vm.const.i64 0
    %any = vm.const.i64 -1
    %timeout = vm.const.i32 -1
    %i8 = vm.const.i32 268435464
    %dense = vm.const.i32 1
    %device = vm.call @hal.devices.get(%c0) : (i32) -> !vm.ref<!hal.device>
    %target = vm.call @allocate(%size) : (i64) -> !vm.ref<!hal.buffer>
    %fence = vm.call @hal.fence.create(%device, %f0) : (!vm.ref<!hal.device>, i64) -> !vm.ref<!hal.fence>
    %none = vm.const.ref.zero : !vm.ref<!hal.fence>
    %named = vm.const.ref.rodata @scope : !vm.buffer
    %null = vm.const.ref.zero : !vm.buffer
    %scope = vm.select.ref %scoped, %named, %null : !vm.buffer
    %table = vm.call @key_table(%key) : (i32) -> !vm.buffer
    %keys = vm.const.ref.rodata @keys : !vm.buffer
    %spans = vm.call @span_table(%span_bytes, %param_offset, %buffer_offset, %length) : (i64, i64, i64, i64) -> !vm.buffer
    vm.call @io_parameters.gather(%device, %any, %none, %fence, %scope, %target, %table, %keys, %spans) : (!vm.ref<!hal.device>, i64, !vm.ref<!hal.fence>, !vm.ref<!hal.fence>, !vm.buffer, !vm.ref<!hal.buffer>, !vm.buffer, !vm.buffer, !vm.buffer) -> ()
    "vm.call.variadic.yieldable"(%timeout, %f0, %fence)[^resume] <{callee = @hal.fence.await, segment_sizes = dense<[-1, -1, 1]> : vector<3xi16>, segment_types = [i32, i64, !vm.ref<!hal.fence>], result_types = [i32]}> : (i32, i64, !vm.ref<!hal.fence>) -> ()
  ^resume(%status: i32):
    vm.cond_fail %status, "fence.await failed"
    %view = vm.call.variadic @hal.buffer_view.create(%target, %f0, %size, %i8, %dense, [%size]) : (!vm.ref<!hal.buffer>, i64, i64, i32, i32, i64 ...) -> !vm.ref<!hal.buffer_view>
    vm.return %view : !vm.ref<!hal.buffer_view>
  }

  // Scatters %length bytes of a 64-byte buffer into key %key.
  vm.export @scatter
  vm.func @scatter(%key: i32, %param_offset: i64, %length: i64) {
    %c0 = vm.const.i32 0
    %f0 = vm.const.i64 0
    %any = vm.const.i64 -1
    %c24 = vm.const.i64 24
    %c64 = vm.const.i64 64
    %timeout = vm.const.i32 -1
    %device = vm.call @hal.devices.get(%c0) : (i32) -> !vm.ref<!hal.device>
    %source = vm.call @allocate(%c64) : (i64) -> !vm.ref<!hal.buffer>
    %fence = vm.call @hal.fence.create(%device, %f0) : (!vm.ref<!hal.device>, i64) -> !vm.ref<!hal.fence>
    %none = vm.const.ref.zero : !vm.ref<!hal.fence>
    %scope = vm.const.ref.rodata @scope : !vm.buffer
    %table = vm.call @key_table(%key) : (i32) -> !vm.buffer
    %keys = vm.const.ref.rodata @keys : !vm.buffer
    %spans = vm.call @span_table(%c24, %param_offset, %f0, %length) : (i64, i64, i64, i64) -> !vm.buffer
    vm.call @io_parameters.scatter(%device, %any, %none, %fence, %source, %scope, %table, %keys, %spans) : (!vm.ref<!hal.device>, i64, !vm.ref<!hal.fence>, !vm.ref<!hal.fence>, !vm.ref<!hal.buffer>, !vm.buffer, !vm.buffer, !vm.buffer, !vm.buffer) -> ()
    "vm.call.variadic.yieldable"(%timeout, %f0, %fence)[^resume] <{callee = @hal.fence.await, segment_sizes = dense<[-1, -1, 1]> : vector<3xi16>, segment_types = [i32, i64, !vm.ref<!hal.fence>], result_types = [i32]}> : (i32, i64, !vm.ref<!hal.fence>) -> ()
  ^resume(%status: i32):
    vm.cond_fail %status, "fence.await failed"
    vm.return
  }
}
