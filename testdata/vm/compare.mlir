// COMPILE: --compile-mode=vm
// Integer comparisons. The core opcodes are eq, ne, lt.s, lt.u and nz; the
// lte/gt/gte forms are compiler pseudo-ops lowered onto them (swapped operands
// and/or a negation), so they are included to check that lowering too.
vm.module @compare {
  vm.export @cmp_i32
  vm.func @cmp_i32(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32) {
    %eq = vm.cmp.eq.i32 %a, %b : i32
    %ne = vm.cmp.ne.i32 %a, %b : i32
    %lts = vm.cmp.lt.i32.s %a, %b : i32
    %ltu = vm.cmp.lt.i32.u %a, %b : i32
    %nz = vm.cmp.nz.i32 %a : i32
    vm.return %eq, %ne, %lts, %ltu, %nz : i32, i32, i32, i32, i32
  }
  vm.export @cmp_i32_derived
  vm.func @cmp_i32_derived(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32, i32) {
    %ltes = vm.cmp.lte.i32.s %a, %b : i32
    %lteu = vm.cmp.lte.i32.u %a, %b : i32
    %gts = vm.cmp.gt.i32.s %a, %b : i32
    %gtu = vm.cmp.gt.i32.u %a, %b : i32
    %gtes = vm.cmp.gte.i32.s %a, %b : i32
    %gteu = vm.cmp.gte.i32.u %a, %b : i32
    vm.return %ltes, %lteu, %gts, %gtu, %gtes, %gteu : i32, i32, i32, i32, i32, i32
  }
  vm.export @cmp_i64
  vm.func @cmp_i64(%a: i64, %b: i64) -> (i32, i32, i32, i32, i32) {
    %eq = vm.cmp.eq.i64 %a, %b : i64
    %ne = vm.cmp.ne.i64 %a, %b : i64
    %lts = vm.cmp.lt.i64.s %a, %b : i64
    %ltu = vm.cmp.lt.i64.u %a, %b : i64
    %nz = vm.cmp.nz.i64 %a : i64
    vm.return %eq, %ne, %lts, %ltu, %nz : i32, i32, i32, i32, i32
  }
  vm.export @cmp_i64_derived
  vm.func @cmp_i64_derived(%a: i64, %b: i64) -> (i32, i32, i32, i32, i32, i32) {
    %ltes = vm.cmp.lte.i64.s %a, %b : i64
    %lteu = vm.cmp.lte.i64.u %a, %b : i64
    %gts = vm.cmp.gt.i64.s %a, %b : i64
    %gtu = vm.cmp.gt.i64.u %a, %b : i64
    %gtes = vm.cmp.gte.i64.s %a, %b : i64
    %gteu = vm.cmp.gte.i64.u %a, %b : i64
    vm.return %ltes, %lteu, %gts, %gtu, %gtes, %gteu : i32, i32, i32, i32, i32, i32
  }
  // A comparison result used as a branch condition.
  vm.export @max_by_branch
  vm.func @max_by_branch(%a: i32, %b: i32) -> i32 {
    %lt = vm.cmp.lt.i32.s %a, %b : i32
    vm.cond_br %lt, ^take_b, ^take_a
  ^take_a:
    vm.return %a : i32
  ^take_b:
    vm.return %b : i32
  }
}
