// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Calls functions of a module defined in Python (`pymod`, a
// PyModuleInterface) from compiled code.
func.func private @pymod.add_one(i32) -> i32
func.func private @pymod.scale(f32, f32) -> f32

func.func @twice_plus_one(%x: i32) -> i32 {
  %c = arith.addi %x, %x : i32
  %r = call @pymod.add_one(%c) : (i32) -> i32
  return %r : i32
}

func.func @scaled(%x: f32) -> f32 {
  %k = arith.constant 3.0 : f32
  %r = call @pymod.scale(%x, %k) : (f32, f32) -> f32
  return %r : f32
}
