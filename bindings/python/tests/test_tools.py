"""The tools as console scripts (`iree-run-module`, ... from the wheel) and
`iree_rust.runtime.benchmark` over `iree-benchmark-module`."""

import importlib.metadata
import os
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import iree_rust.runtime as rt
from iree_rust.runtime import _binding
from iree_rust.runtime.benchmark import (
    BenchmarkResult,
    BenchmarkTimeoutError,
    BenchmarkToolError,
    _build_benchmark_args,
    benchmark_exe,
    benchmark_module,
)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
TINY = os.path.join(DATA, "tiny.vmfb")
TOOLS = _binding._tool_names()


def script(name):
    """The installed console script `name`."""
    return os.path.join(sysconfig.get_path("scripts"), name)


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kwargs)


def test_every_tool_has_its_console_script():
    entry_points = importlib.metadata.distribution("iree-rust-runtime").entry_points
    scripts = {e.name: e.value for e in entry_points if e.group == "console_scripts"}
    assert sorted(scripts) == TOOLS == sorted(TOOLS)
    assert "iree-run-module" in TOOLS and "iree-benchmark-module" in TOOLS
    for name, target in scripts.items():
        assert target == "iree_rust.runtime._tools:" + name.replace("-", "_")
        assert os.access(script(name), os.X_OK), script(name)


@pytest.mark.parametrize("name", TOOLS)
def test_console_script_help(name):
    result = run([script(name), "--help"])
    assert result.returncode == 0, result.stderr
    # The banner (or usage line) names the tool, as the executable's does.
    assert f"IREE: {name}\n" in result.stdout or f"Usage: {name}" in result.stdout


def test_run_module_script():
    add = [f"--module={TINY}", "--function=add_i32", "--input=2", "--input=3"]
    result = run([script("iree-run-module"), *add])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "EXEC @add_i32\nresult[0]: i32=5\n"
    result = run(
        [
            script("iree-run-module"),
            f"--module={TINY}",
            "--device=local-sync",
            "--function=mul4",
            "--input=4xf32=1,2,3,4",
            "--input=4xf32=2",
        ]
    )
    assert result.returncode == 0, result.stderr
    assert "4xf32=2 4 6 8" in result.stdout


def test_run_module_script_exit_status():
    result = run([script("iree-run-module"), "--no_such_flag"])
    assert result.returncode == 1
    assert "--no_such_flag" in result.stderr and result.stdout == ""
    add = [f"--module={TINY}", "--function=add_i32", "--input=2", "--input=3"]
    result = run([script("iree-run-module"), *add, "--expected_output=6"])
    assert result.returncode == 1
    result = run([script("iree-run-module"), f"--module={DATA}/no_such.vmfb"])
    assert result.returncode == 1 and "no_such.vmfb" in result.stderr


def test_module_reads_stdin():
    with open(TINY, "rb") as file:
        module = file.read()
    result = subprocess.run(
        [script("iree-run-module"), "--module=-", "--function=add_i32"]
        + ["--input=1", "--input=1"],
        input=module,
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(b"i32=2\n")


def test_dump_module_and_cpuinfo_scripts():
    result = run([script("iree-dump-module"), "--output=metadata", TINY])
    assert result.returncode == 0, result.stderr
    assert "add_i32" in result.stdout and "mul4" in result.stdout
    result = run([script("iree-cpuinfo")])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(line.rsplit(" ", 1)[1] in ("0", "1") for line in lines)


def test_tool_output_keeps_its_place_in_python_output():
    # The tool writes to the process's stdout between two Python prints.
    code = (
        "from iree_rust.runtime._tools import run_tool\n"
        "print('before')\n"
        f"args = ['--module={TINY}', '--function=add_i32', '--input=2', '--input=3']\n"
        "status = run_tool('iree-run-module', args)\n"
        "print('after', status)\n"
    )
    result = run([sys.executable, "-c", code])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "before\nEXEC @add_i32\nresult[0]: i32=5\nafter 0\n"


def test_tools_module_runs_a_tool_by_name():
    result = run([sys.executable, "-m", "iree_rust.runtime._tools", "iree-cpuinfo"])
    assert result.returncode == 0 and result.stdout
    result = run([sys.executable, "-m", "iree_rust.runtime._tools", "iree-no-such"])
    assert result.returncode != 0 and "iree-run-module" in result.stderr
    with pytest.raises(ValueError, match="unknown tool"):
        _binding._run_tool("iree-no-such-tool", [])


def test_benchmark_exe_is_the_console_script():
    assert benchmark_exe() == rt.benchmark_exe() == script("iree-benchmark-module")
    assert os.access(benchmark_exe(), os.X_OK)


def test_build_benchmark_args():
    args, flatbuffer = _build_benchmark_args(
        TINY,
        entry_function="mul4",
        inputs=[
            np.arange(4, dtype=np.float32),
            np.full((2, 2), 3, dtype=np.int32),
            "4xf32=1",
            np.float64(2.5),
        ],
        device="local-sync",
        benchmark_repetitions=3,
        batch_size=[1, 2],
        print_statistics=True,
    )
    assert flatbuffer is None
    assert args == [
        benchmark_exe(),
        f"--module={TINY}",
        "--function=mul4",
        "--device=local-sync",
        "--benchmark_repetitions=3",
        "--batch_size=1",
        "--batch_size=2",
        "--print_statistics=true",
        "--input=4xf32=0.0,1.0,2.0,3.0",
        "--input=2x2xi32=3",
        "--input=4xf32=1",
        "--input=f64=2.5",
    ]
    args, _ = _build_benchmark_args(TINY, executable="/opt/other-benchmark-module")
    assert args == ["/opt/other-benchmark-module", f"--module={TINY}"]


def test_benchmark_module_file():
    results = benchmark_module(
        TINY,
        entry_function="mul4",
        inputs=[np.arange(1, 5, dtype=np.float32), np.full(4, 2, dtype=np.float32)],
        device="local-sync",
        benchmark_min_time="0.01s",
    )
    assert len(results) == 1
    result = results[0]
    assert isinstance(result, BenchmarkResult)
    assert result.benchmark_name == "BM_mul4/process_time/real_time"
    value, unit = result.time.split(" ")
    assert float(value) > 0 and unit == "ms"
    assert int(result.iterations) > 0
    assert result.report["run_type"] == "iteration"


def test_benchmark_module_repetitions_report_aggregates():
    results = benchmark_module(
        TINY,
        entry_function="add_i32",
        inputs=["1", "2"],
        benchmark_min_time="10x",
        benchmark_repetitions=2,
        time_unit="us",
    )
    names = [r.benchmark_name for r in results]
    assert names[:2] == ["BM_add_i32/process_time/real_time"] * 2
    aggregates = {r.report.get("aggregate_name") for r in results}
    assert {"mean", "median", "stddev", "cv"} <= aggregates
    cv = next(r for r in results if r.report.get("aggregate_name") == "cv")
    assert cv.time.endswith(" %")
    assert all(r.time.endswith(" us") for r in results if r is not cv)


def test_benchmark_module_vm_module():
    instance = rt.VmInstance()
    with open(TINY, "rb") as file:
        module = rt.VmModule.from_flatbuffer(instance, file.read(), warn_if_copy=False)
    if module.stashed_flatbuffer_blob is None:
        pytest.skip("VmModule keeps no flatbuffer to pass to the tool")
    with pytest.raises(ValueError, match="multiple options"):
        benchmark_module(module)
    results = benchmark_module(
        module, entry_function="add_i32", inputs=["1", "2"], benchmark_min_time="10x"
    )
    assert [r.benchmark_name for r in results] == ["BM_add_i32/process_time/real_time"]


def test_benchmark_module_failures():
    with pytest.raises(BenchmarkToolError, match="no_such_function"):
        benchmark_module(TINY, entry_function="no_such_function")
    with pytest.raises(ValueError, match="benchmark_out"):
        benchmark_module(TINY, benchmark_out="report.json")
    # No export takes no inputs: nothing is benchmarked.
    assert benchmark_module(TINY) == []
    with pytest.raises(BenchmarkTimeoutError):
        benchmark_module(TINY, "add_i32", inputs=["1", "2"], timeout=0.001)


REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@pytest.mark.skipif(sys.platform != "linux", reason="the library is built with cc on Linux")
def test_run_module_loads_an_upstream_abi_dynamic_module(tmp_path):
    """A module library built against upstream's C API headers (the C API
    tests' own, crates/c-api/tests/c/dynamic_module.c) loads through
    --module=lib.so in the tool running inside this extension: its iree_*
    calls resolve to the extension's runtime."""
    library = tmp_path / "libdyn.so"
    compiled = run([
        os.environ.get("CC", "cc"), "-std=gnu11", "-fPIC", "-shared",
        "-I", os.path.join(REPO, "crates", "c-api", "include"),
        os.path.join(REPO, "crates", "c-api", "tests", "c", "dynamic_module.c"),
        "-o", str(library),
    ])
    if compiled.returncode != 0:
        pytest.skip(f"no C compiler: {compiled.stderr}")
    user = os.path.join(REPO, "testdata", "c-api", "dynamic_user.vmfb")
    result = run([
        script("iree-run-module"), "--device=local-sync",
        f"--module={library}@iree_vm_dynamic_module_create?base=5",
        f"--module={user}", "--function=add_base", "--input=37",
    ])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "EXEC @add_base\nresult[0]: i32=42\n"
