// COMPILE: --compile-mode=vm
// An optional import whose signature does not match the export.
vm.module @bad_signature_optional {
  vm.import private optional @provider.add(%a : i32) -> i32
  vm.export @resolved
  vm.func @resolved() -> i32 {
    %r = vm.import.resolved @provider.add : i32
    vm.return %r : i32
  }
}
