"""Parameters from splats, buffers, file handles and archives written from
Python, read by a compiled linear layer (upstream's io_test scenarios)."""
import array
import os
import tempfile
from pathlib import Path

import numpy as np

import iree.runtime as rt

VMFB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "params_mm.vmfb")
instance = rt.VmInstance()
device = rt.get_device("local-task")
config = rt.Config(device=device)
with open(VMFB, "rb") as f:
    BLOB = f.read()


def run(index, label):
    modules = rt.load_vm_modules(
        rt.create_io_parameters_module(instance, index.create_provider(scope="params")),
        rt.create_hal_module(instance, device),
        rt.VmModule.copy_buffer(instance, BLOB),
        config=config,
    )
    result = modules[-1].run(np.zeros([128, 20], dtype=np.float32) + 2.0).to_host()
    print(label, result.shape, np.unique(result).tolist())


index = rt.ParameterIndex()
print(len(index))
index.reserve(25)
print(len(index))
rt.create_io_parameters_module(instance, index.create_provider())

fh = rt.FileHandle.wrap_memory(b"foobar")
print(fh.is_host_allocation, bytes(fh.host_allocation))
index.add_from_file_handle("data", fh, length=3, offset=3)
print(index[0].key, index[0].length, index[0].is_file)

splats = rt.ParameterIndex()
splats.add_splat("weight", array.array("f", [2.0]), 30 * 20 * 4)
splats.add_splat("bias", array.array("f", [1.0]), 30 * 4)
run(splats, "splats")

buffers = rt.ParameterIndex()
buffers.add_buffer("weight", np.zeros([30, 20], dtype=np.float32) + 2.0)
buffers.add_buffer("bias", np.zeros([30], dtype=np.float32) + 1.0)
run(buffers, "buffers")

handles = rt.ParameterIndex()
blob = (np.zeros([30 * 20 + 30], dtype=np.float32) + 2.0)
blob[600:] = 1.0
fh = rt.FileHandle.wrap_memory(blob.tobytes())
handles.add_from_file_handle("weight", fh, length=600 * 4)
handles.add_from_file_handle("bias", fh, length=30 * 4, offset=600 * 4)
run(handles, "file handles")

with tempfile.TemporaryDirectory() as td:
    path = Path(td) / "archive.irpa"
    target = splats.create_archive_file(str(path))
    print(path.exists(), path.stat().st_size > 0, len(target))
    rt.save_archive_file(
        {
            "weight": rt.SplatValue(np.float32(2.0), 30 * 20),
            "bias": rt.SplatValue(array.array("f", [1.0]), 30),
            "array": np.asarray([1, 2, 3]),
        },
        path,
    )
    loaded = rt.ParameterIndex()
    loaded.load(str(path))
    print(sorted(k for k, _ in loaded.items()))
    run(loaded, "saved archive")
    with open(path, "rb") as f:
        via_fd = rt.ParameterIndex()
        via_fd.load_from_file_handle(rt.FileHandle.wrap_fd(f.fileno()), "irpa")
        print(len(via_fd))
        run(via_fd, "archive by fd")

try:
    rt.ParameterIndex().add_splat("weight", array.array("f", [1.0, 2.0, 3.0, 4.0, 5.0]), 30 * 20 * 4)
except ValueError:
    print("splat too big: ValueError")
