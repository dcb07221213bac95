"""Benchmarks IREE modules from Python with this package's
`iree-benchmark-module` (the API of upstream's `iree.runtime.benchmark`).

`benchmark_module(module, ...)` runs the tool in a child process (this
interpreter with `-m iree_rust.runtime._tools`, so neither PATH nor the
console script is needed) and returns one `BenchmarkResult` per row of its
Google Benchmark JSON report. Another tool binary (upstream's, say) can be
given as `executable`.
"""

import collections
import json
import os
import site
import subprocess
import sys
import sysconfig
import tempfile
from os import PathLike
from typing import List, Optional, Tuple, Union

import numpy

from ._binding import VmModule

from .dtypes import DTYPE_TO_ABI_TYPE

__all__ = [
    "benchmark_exe",
    "benchmark_module",
]

# The tool, by its name in `_binding._tool_names()`.
_TOOL = "iree-benchmark-module"

BenchmarkResult = collections.namedtuple(
    "BenchmarkResult", "benchmark_name time cpu_time iterations report"
)
BenchmarkResult.__doc__ = """A row of the benchmark report: a benchmark's
run, or an aggregate (mean, median, stddev, cv) over repetitions.

`time` and `cpu_time` are strings `"<value> <unit>"` (unit `%` for the
cv aggregates), `iterations` a string, and `report` the row's whole JSON
object (counters and metadata included)."""


class BenchmarkToolError(Exception):
    """The tool failed, or reported a failed benchmark; `message` holds its
    output."""

    def __init__(self, message):
        self.message = message
        super().__init__(message)


class BenchmarkTimeoutError(Exception):
    """The benchmark ran past its `timeout` and was stopped."""


def benchmark_exe():
    """The `iree-benchmark-module` console script this package installs,
    next to this interpreter's other scripts (the user scheme's when that is
    where it is). `benchmark_module` runs this package's tool when its
    executable is this path, whether or not the script is there."""
    name = _TOOL + (".exe" if os.name == "nt" else "")
    default = os.path.join(sysconfig.get_path("scripts"), name)
    if not os.path.exists(default):
        try:
            user = os.path.join(sysconfig.get_path("scripts", f"{os.name}_user"), name)
        except KeyError:  # No such scheme here.
            return default
        if os.path.exists(user):
            return user
    return default


def _input_flag(value):
    """`--input=` for one input: a string as given, an array as
    `<shape>x<abi type>=<values>` (one value when all are equal)."""
    if isinstance(value, str):
        return f"--input={value}"
    array = numpy.asarray(value)
    abi_type = DTYPE_TO_ABI_TYPE[array.dtype]
    flat = array.reshape(-1)
    if flat.dtype == numpy.bool_:
        flat = flat.astype(numpy.uint8)
    if flat.size and numpy.all(flat == flat[0]):
        text = str(flat[0])
    else:
        text = ",".join(str(v) for v in flat)
    shape = "".join(f"{d}x" for d in array.shape)
    return f"--input={shape}{abi_type}={text}"


def _build_benchmark_args(
    module: Union[VmModule, PathLike, str],
    entry_function: Optional[str] = None,
    inputs: Optional[List[Union[str, numpy.ndarray]]] = None,
    executable: Union[str, PathLike, None] = None,
    **kwargs,
) -> Tuple[List[str], Optional[bytes]]:
    """The tool's command line for a benchmark, and the module's flatbuffer
    to feed it on stdin (None for a module file).

    A `VmModule` is passed as `--module=-`, its function picked by
    `entry_function` (needed when it exports more than one); a path as
    `--module=<path>`. Keyword arguments become `--key=value` flags, once
    per value of a list or tuple, booleans as `true`/`false`.
    """
    args = [os.fspath(executable) if executable is not None else benchmark_exe()]
    flatbuffer = None
    if isinstance(module, VmModule):
        functions = [f for f in module.function_names if f != "__init"]
        if entry_function is None:
            if len(functions) != 1:
                raise ValueError(
                    f"No function specified with multiple options {functions}"
                    if functions
                    else "The module exports no function to benchmark"
                )
            entry_function = functions[0]
        elif entry_function not in functions:
            raise ValueError(
                f"Attempted to benchmark unknown function {entry_function} "
                f"of options {functions}"
            )
        flatbuffer = module.stashed_flatbuffer_blob
        if flatbuffer is None:
            raise ValueError(
                "The module keeps no flatbuffer to benchmark; pass its file path"
            )
        args.append("--module=-")
    else:
        args.append(f"--module={os.fspath(module)}")
    # Without a function the tool benchmarks each export taking no inputs.
    if entry_function is not None:
        args.append(f"--function={entry_function}")
    for key, value in kwargs.items():
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, bool):
                v = "true" if v else "false"
            args.append(f"--{key}={v}")
    args.extend(_input_flag(value) for value in inputs or [])
    return args, flatbuffer


def _tool_command(args: List[str]) -> Tuple[List[str], dict]:
    """The command and environment that run `args`: this package's tool
    in a child interpreter, seeing this copy of the package, when `args[0]`
    is `benchmark_exe()`; otherwise `args` as they are."""
    if not args or args[0] != benchmark_exe():
        return list(args), None
    package = __name__.rpartition(".")[0]
    command = [sys.executable, "-m", f"{package}._tools", _TOOL, *args[1:]]
    # The child finds an installed package (and one on PYTHONPATH, or in
    # the working directory) as this process did; one imported from
    # elsewhere needs its directory on PYTHONPATH.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    installed = site.getsitepackages() + [site.getusersitepackages()]
    if os.path.realpath(root) in {os.path.realpath(p) for p in installed}:
        return command, None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    return command, env


def _run_benchmark(
    args: List[str], flatbuffer: Optional[bytes] = None, timeout: Optional[float] = None
) -> Tuple[str, str]:
    """Runs the tool command line `args` (with `flatbuffer` on stdin) and
    returns its stdout and stderr. BenchmarkTimeoutError after `timeout`
    seconds; BenchmarkToolError with both outputs when it fails."""
    command, env = _tool_command(args)
    try:
        process = subprocess.run(
            command,
            input=None if flatbuffer is None else bytes(flatbuffer),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        raise BenchmarkTimeoutError(
            f"Benchmark timed out after {timeout} seconds"
        ) from None
    out = process.stdout.decode(errors="replace")
    err = process.stderr.decode(errors="replace")
    if process.returncode != 0:
        raise BenchmarkToolError(
            f"{args[0]} exited with status {process.returncode}\n"
            f"stderr:\n{err}\nstdout:\n{out}"
        )
    return out, err


def benchmark_module(
    module: Union[VmModule, PathLike, str],
    entry_function: Optional[str] = None,
    inputs: Optional[List[Union[str, numpy.ndarray]]] = None,
    timeout: Optional[float] = None,
    executable: Union[str, PathLike, None] = None,
    **kwargs,
) -> List[BenchmarkResult]:
    """Benchmarks `module` (a `VmModule` or a module file) with
    `iree-benchmark-module` and returns the rows of its report.

    `entry_function` picks the function (a module file without one
    benchmarks every export that takes no inputs); `inputs` are arrays or
    `--input=` strings; other keyword arguments are tool flags
    (`device="local-task"`, `benchmark_repetitions=3`). `executable` runs
    another tool binary. Raises BenchmarkTimeoutError after `timeout`
    seconds and BenchmarkToolError when the tool or a benchmark fails.
    """
    if "benchmark_out" in kwargs or "benchmark_out_format" in kwargs:
        raise ValueError(
            "benchmark_module writes the report to a file of its own; "
            "benchmark_out and benchmark_out_format cannot be given"
        )
    with tempfile.TemporaryDirectory() as directory:
        # The report goes to a file so that nothing else the tool prints is
        # taken for it.
        report = os.path.join(directory, "report.json")
        args, flatbuffer = _build_benchmark_args(
            module,
            entry_function=entry_function,
            inputs=inputs,
            executable=executable,
            benchmark_out=report,
            benchmark_out_format="json",
            **kwargs,
        )
        _run_benchmark(args, flatbuffer, timeout)
        with open(report) as file:
            return _parse_benchmark_results(file.read())


def _parse_benchmark_results(report: str) -> List[BenchmarkResult]:
    """The rows of a Google Benchmark JSON report (empty when no benchmark
    was selected); BenchmarkToolError for a row that reports a failure."""
    if not report.strip():
        return []
    results = []
    for row in json.loads(report)["benchmarks"]:
        if row.get("error_occurred"):
            raise BenchmarkToolError(f"{row['name']}: {row.get('error_message', '')}")
        unit = row["time_unit"]
        time, cpu_time = row["real_time"], row["cpu_time"]
        if row.get("aggregate_unit") == "percentage":
            unit = "%"
            time, cpu_time = time * 100, cpu_time * 100
        results.append(
            BenchmarkResult(
                benchmark_name=row["name"],
                time=f"{time} {unit}",
                cpu_time=f"{cpu_time} {unit}",
                iterations=str(row["iterations"]),
                report=row,
            )
        )
    return results
