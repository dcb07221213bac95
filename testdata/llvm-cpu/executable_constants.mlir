// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// iree-compile 3.13's llvm-cpu library always declares 0 executable constants
// (its LibraryBuilder never sets the count) while hal.executable.create passes
// the 2 the constant block computes: upstream's runtime fails the load with
// FAILED_PRECONDITION, and so do we. hal-local's tests run the same kernel with
// the count patched to 2 (right answer: in * 7 + 100).
// A kernel that reads two executable-level constants
// (hal.executable.constant.block / hal.executable.constant.load): the host
// computes them when it creates the executable and passes them in
// hal.executable.create's constants buffer. out[i] = in[i] * 7 + 100.
#target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#layout = #hal.pipeline.layout<bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
hal.executable private @ex {
  hal.executable.variant public @embedded_elf_x86_64 target(#target) {
  hal.executable.constant.block() -> (i32, i32) as ("scale", "offset") {
    %scale = arith.constant 7 : i32
    %offset = arith.constant 100 : i32
    hal.return %scale, %offset : i32, i32
  }
  hal.executable.export public @scale_offset ordinal(0) layout(#layout) count(%device: !hal.device) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @scale_offset() {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      %scale = hal.executable.constant.load "scale" : i32
      %offset = hal.executable.constant.load "offset" : i32
      %in = hal.interface.binding.subspan layout(#layout) binding(0) : memref<4xi32>
      %out = hal.interface.binding.subspan layout(#layout) binding(1) : memref<4xi32>
      scf.for %i = %c0 to %c4 step %c1 {
        %v = memref.load %in[%i] : memref<4xi32>
        %m = arith.muli %v, %scale : i32
        %r = arith.addi %m, %offset : i32
        memref.store %r, %out[%i] : memref<4xi32>
      }
      return
    }
  }
  }
}
func.func @main(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = flow.dispatch @ex::@embedded_elf_x86_64::@scale_offset(%arg0) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
