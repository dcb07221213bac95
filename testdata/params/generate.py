"""Writes the parameter files of testdata/params.

Run by `cargo xtask testdata --suite params` with the pinned venv's Python
(numpy, safetensors==0.7.0, gguf==0.19.0) in this directory, with
IREE_CREATE_PARAMETERS_UPSTREAM (upstream's iree-create-parameters) and
IREE_CREATE_PARAMETERS_OURS (ours) in the environment. Every file is a
pure function of this script, so reruns reproduce the same bytes.
"""

import os
import subprocess
import tempfile

import numpy as np
from safetensors.numpy import save_file

import gguf

UPSTREAM = os.environ["IREE_CREATE_PARAMETERS_UPSTREAM"]
OURS = os.environ["IREE_CREATE_PARAMETERS_OURS"]

i, j = np.meshgrid(np.arange(128), np.arange(128), indexing="ij")
FLOATS = {
    "w_f32": np.array([0.5, -1.25, 3.0, 100.0], dtype=np.float32),
    "w_f16": (np.arange(8) * 0.5 - 1.0).astype(np.float16),
    "w_big": (((i * 7 + j * 3) % 17 - 8) / 4.0).astype(np.float32),
}
INTS = {
    "w_i32": np.array([[1, -2, 3], [400000, -5, 6]], dtype=np.int32),
    "w_i8": (np.arange(16) - 8).astype(np.int8),
    "w_i64": np.array([1 << 40, -3, 7], dtype=np.int64),
}


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def irpa_from_arrays(path, arrays, extra=()):
    """An .irpa written by our iree-create-parameters holding `arrays`."""
    with tempfile.TemporaryDirectory() as tmp:
        flags = []
        for key, value in arrays.items():
            raw = os.path.join(tmp, key + ".bin")
            value.tofile(raw)
            flags.append(f"--data_file={key}={raw}")
        run(OURS, *flags, *extra, f"--output={path}")


def gguf_from_arrays(path, arrays, alignment=None):
    writer = gguf.GGUFWriter(path, "iree-test")
    if alignment is not None:
        writer.add_custom_alignment(alignment)
    for key, value in arrays.items():
        writer.add_tensor(key, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def truncate(source, target, length):
    with open(source, "rb") as f:
        data = f.read()
    with open(target, "wb") as f:
        f.write(data[:length])


def patch(source, target, offset, replacement):
    with open(source, "rb") as f:
        data = bytearray(f.read())
    data[offset : offset + len(replacement)] = replacement
    with open(target, "wb") as f:
        f.write(bytes(data))


# Ours and the formats' own writers.
irpa_from_arrays("floats.irpa", FLOATS)
irpa_from_arrays("ints.irpa", INTS)
irpa_from_arrays(
    "mixed.irpa",
    {"w_f32": FLOATS["w_f32"], "w_big": FLOATS["w_big"]},
    extra=["--splat=w_f16=8xf16=1.5"],
)
save_file(FLOATS, "floats.safetensors")
save_file(INTS, "ints.safetensors")
gguf_from_arrays("floats.gguf", FLOATS)
gguf_from_arrays("floats_align64.gguf", FLOATS, alignment=64)
# GGUF v2 has v3's layout for little-endian files; only the version differs.
patch("floats.gguf", "floats_v2.gguf", 4, (2).to_bytes(4, "little"))

# Upstream's writer: splats, and zero-filled data (its 3.13 tool fails
# to write data patterns).
run(
    UPSTREAM,
    "--splat=w_f32=4xf32=0.5",
    "--splat=w_f16=8xf16=2",
    "--splat=w_big=128x128xf32=0.25",
    "--output=upstream_splat.irpa",
)
run(
    UPSTREAM,
    "--data=w_f32=4xf32",
    "--data=w_f16=8xf16",
    "--data=w_big=128x128xf32",
    "--output=upstream_zero.irpa",
)

# Broken files.
truncate("floats.irpa", "truncated.irpa", 100)
patch("floats.irpa", "bad_magic.irpa", 0, b"IRPB")
truncate("floats.safetensors", "truncated.safetensors", 300)
truncate("floats.gguf", "truncated.gguf", os.path.getsize("floats.gguf") - 1000)
patch("floats.gguf", "v1.gguf", 4, (1).to_bytes(4, "little"))
irpa_from_arrays(
    "short.irpa",
    {
        "w_f32": FLOATS["w_f32"],
        "w_f16": FLOATS["w_f16"],
        "w_big": FLOATS["w_big"][:, :127].copy(),
    },
)
with open("weights.bin", "wb") as f:
    f.write(b"\0" * 64)

# What upstream's iree-dump-parameters prints for each file it reads
# (tools/iree-dump-parameters/tests/dumps.rs compares ours with these).
DUMP = os.environ.get("IREE_DUMP_PARAMETERS_UPSTREAM")
if DUMP:
    import glob

    os.makedirs("dumps", exist_ok=True)
    for stale in glob.glob("dumps/*.txt"):
        os.remove(stale)
    files = sorted(glob.glob("*.irpa") + glob.glob("*.gguf") + glob.glob("*.safetensors"))
    cases = [[f"--parameters={f}"] for f in files]
    cases.append(
        [
            "--parameters=model=floats.gguf",
            "--parameters=floats.safetensors",
            "--parameters=model=mixed.irpa",
            "--parameters=other=upstream_splat.irpa",
        ]
    )
    for args in cases:
        result = subprocess.run([DUMP, *args], capture_output=True)
        if result.returncode != 0:
            continue
        name = "+".join(a.split("=", 1)[1].replace("=", "@") for a in args)
        with open(f"dumps/{name}.txt", "wb") as f:
            f.write(b" ".join(a.encode() for a in args) + b"\n" + result.stdout)

# Archives written by upstream's iree-convert-parameters, which ours must
# reproduce byte for byte (tools/iree-convert-parameters/tests/convert.rs).
CONVERT = os.environ.get("IREE_CONVERT_PARAMETERS_UPSTREAM")
if CONVERT:
    import glob

    os.makedirs("converted", exist_ok=True)
    for stale in glob.glob("converted/*"):
        os.remove(stale)
    conversions = {
        "safetensors": ["--parameters=floats.safetensors"],
        "gguf_and_safetensors_edited": [
            "--parameters=floats.gguf",
            "--parameters=ints.safetensors",
            "--exclude=w_i8",
            "--rename=w_f32=renamed",
            "--splat=w_i64=i32=7",
            "--splat=w_f16",
        ],
        "stripped": [
            "--parameters=mixed.irpa",
            "--parameters=s=upstream_splat.irpa",
            "--strip",
            "--splat=w_big=f32=1.5",
        ],
        "hex_splat": ["--parameters=ints.irpa", "--splat=w_i32=x32=CAFEF00D"],
    }
    for name, args in conversions.items():
        subprocess.run(
            [CONVERT, *args, f"--output=converted/{name}.irpa", "--quiet"], check=True
        )
        with open(f"converted/{name}.args", "w") as f:
            f.write(" ".join(args) + "\n")
