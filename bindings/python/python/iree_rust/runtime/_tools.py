"""The project's command-line tools as console scripts.

`pip install` puts `iree-run-module`, `iree-benchmark-module`, ... on PATH
(upstream's wheel's names, listed in `pyproject.toml`); each runs the tool
inside this interpreter through the extension module, whose table of tools
(`_binding._tool_names()`) is the one list of them. The entry point of tool
`iree-run-module` is `iree_run_module` here, and so on.

`python -m iree_rust.runtime._tools TOOL [ARGS...]` runs one without a
console script (what `iree_rust.runtime.benchmark` does).
"""

import os
import signal
import sys

from . import _binding

__all__ = ["run_tool"]


def run_tool(name, args):
    """Runs tool `name` (`"iree-run-module"`) with the command-line
    arguments `args` (after the program name) in this process and returns
    its exit status. Python's stdout and stderr are flushed first, as the
    tool writes to the same file descriptors. What a tool sets up for the
    process stays: with `IREE_LOG` set, its log subscriber; on a terminal,
    its progress bars for large loads."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    args = [
        os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in args
    ]
    return _binding._run_tool(name, args)


def _exit_with(name, args):
    """Runs a tool as the whole program: Ctrl-C ends it as it would the
    executable (the tool does not return to Python to see the interrupt),
    then the interpreter exits with its status."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(run_tool(name, args))


def _entry_point(name):
    def main():
        _exit_with(name, sys.argv[1:])

    main.__name__ = name.replace("-", "_")
    main.__qualname__ = main.__name__
    main.__doc__ = f"The `{name}` console script."
    return main


for _name in _binding._tool_names():
    globals()[_name.replace("-", "_")] = _entry_point(_name)
del _name


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in _binding._tool_names():
        tools = ", ".join(_binding._tool_names())
        sys.exit(f"usage: python -m {__spec__.name} TOOL [ARGS...] (TOOL: {tools})")
    _exit_with(sys.argv[1], sys.argv[2:])
