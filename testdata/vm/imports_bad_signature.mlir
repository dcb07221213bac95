// COMPILE: --compile-mode=vm
// Imports @provider.add with a signature (cconv 0II_I) that does not match
// the export (0ii_i): resolving the import fails when the context is built.
vm.module @bad_signature {
  vm.import private @provider.add(%a : i64, %b : i64) -> i64
  vm.export @add
  vm.func @add(%a: i64, %b: i64) -> i64 {
    %r = vm.call @provider.add(%a, %b) : (i64, i64) -> i64
    vm.return %r : i64
  }
}
