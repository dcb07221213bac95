// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
// Calls the `sample` module of samples/sample-module (a dynamic module,
// loaded first: --module=libsample_module.so --module=sample_user.vmfb).
// No cases: upstream cannot load our .so modules (see docs/native-modules.md);
// the tests in tools/iree-run-module/tests/dynamic_modules.rs run it.

func.func private @sample.accumulate(i32) -> i32
func.func private @sample.reverse(tensor<?xf32>) -> tensor<?xf32>

// Adds %a then %b to the context's running sum; returns both sums.
func.func @accumulate(%a: i32, %b: i32) -> (i32, i32) {
  %0 = call @sample.accumulate(%a) : (i32) -> i32
  %1 = call @sample.accumulate(%b) : (i32) -> i32
  return %0, %1 : i32, i32
}

// Reverses %x in the sample module, then adds %x to the reversed tensor on
// the device (so the view the module created feeds a dispatch).
func.func @reverse(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %r = call @sample.reverse(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %s = arith.addf %r, %x : tensor<?xf32>
  return %r, %s : tensor<?xf32>, tensor<?xf32>
}

// Both exports in one call: the sum after adding %a, and %x reversed.
func.func @both(%a: i32, %x: tensor<?xf32>) -> (i32, tensor<?xf32>) {
  %0 = call @sample.accumulate(%a) : (i32) -> i32
  %r = call @sample.reverse(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %r : i32, tensor<?xf32>
}
