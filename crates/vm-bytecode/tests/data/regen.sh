#!/usr/bin/env bash
# Recompiles the sample modules of tests/format.rs with the pinned upstream
# compiler (IREE 3.13). Run from anywhere; compiles inside this directory so
# that the file names recorded in the debug locations stay relative.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
IREE_COMPILE="${IREE_COMPILE:-/work/.iree-venv/bin/iree-compile}"
vm() { "$IREE_COMPILE" --compile-mode=vm "$@"; }

vm --iree-vm-target-extension-f32=true add.mlir -o add_zip.vmfb
vm --iree-vm-target-extension-f32=true --iree-vm-emit-polyglot-zip=false add.mlir -o add_bare.vmfb
# The 4096-byte blob is externalized (the 3.13 compiler keeps 4095 bytes and
# less embedded); the 16-byte one stays embedded.
vm rodata.mlir -o rodata_zip.vmfb
vm --iree-vm-emit-polyglot-zip=false rodata.mlir -o rodata_bare.vmfb
vm --iree-vm-target-extension-f32=true imports.mlir -o imports.vmfb
vm locs.mlir -o locs.vmfb
vm three.mlir -o three.vmfb
