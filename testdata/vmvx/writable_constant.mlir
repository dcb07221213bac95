// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx
// A program that writes in place into an imported module constant: the
// pinned compiler imports `util.unfoldable_constant` results with write usage
// and the matmul accumulates into that buffer. Upstream writes into its copy
// of the module; ours imports a private copy-on-write window of the module,
// so the result matches and the module's own bytes never change.
func.func @mm_into_constant(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %init = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %r = linalg.matmul ins(%a, %b : tensor<2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<2x2xi32>) -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}
