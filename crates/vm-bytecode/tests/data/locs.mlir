vm.module @locs_module {
  vm.export @f
  vm.func @f(%a: i32) -> i32 {
    %b = vm.add.i32 %a, %a : i32 loc("named"("inner.mlir":7:3))
    %c = vm.mul.i32 %b, %b : i32 loc(fused<"meta">["x.mlir":1:2, "y.mlir":3:4])
    %d = vm.sub.i32 %c, %a : i32 loc(callsite("callee.mlir":5:6 at "caller.mlir":8:9))
    %e = vm.xor.i32 %d, %a : i32 loc("bare_name")
    vm.return %e : i32 loc(unknown)
  }
}
