"""Process-wide runtime flags, as `iree-run-module` takes them.

This runtime is configured through its API; the flags it takes are
`--help` and the HAL replay capture flags: `--device_replay_output=PATH`
records every HAL call of every device created afterwards (by `HalDriver`,
`get_device`, `create_device`, ...) into the `.ireereplay` file PATH, as
`iree-run-module --device_replay_output=` does, with
`--device_replay_file_policy` and `--device_replay_file_validation` (given
before it, or in the same call) as options; the file is finished at exit
(or by `--device_replay_output=` with no path). Every other flag is
rejected with ValueError, as upstream rejects unknown ones.
`IREE_PY_RUNTIME_FLAGS`, when set, is parsed at import.
"""

import atexit
import os
import shlex

from . import _binding

__all__ = ["parse_flags", "FUNCTION_INPUT_VALIDATION"]

FUNCTION_INPUT_VALIDATION = True

_KNOWN = {
    "help",
    "device_replay_output",
    "device_replay_file_policy",
    "device_replay_file_validation",
}

_replay = {
    "device_replay_file_policy": "reference",
    "device_replay_file_validation": "identity",
}


def parse_flags(*flags: str):
    """Parses `--name[=value]` flags; ValueError for unknown ones."""
    parsed = []
    for flag in flags:
        if not flag.startswith("--"):
            raise ValueError(f"flag '{flag}' is not of the form --name[=value]")
        name, _, value = flag[2:].partition("=")
        if name not in _KNOWN:
            raise ValueError(f"flag '{name}' not recognized")
        parsed.append((name, value))
    output = None
    for name, value in parsed:
        if name == "device_replay_output":
            output = value
        elif name in _replay:
            _replay[name] = value
    if output is not None:
        if output:
            _binding._start_device_replay(
                output,
                _replay["device_replay_file_policy"],
                _replay["device_replay_file_validation"],
            )
        else:
            _binding._close_device_replay()


atexit.register(_binding._close_device_replay)


def _load_default_flags_from_env():
    text = os.getenv("IREE_PY_RUNTIME_FLAGS")
    if not text:
        return
    try:
        parse_flags(*shlex.split(text))
    except ValueError as e:
        raise RuntimeError(
            f"Bad flag value in environment variable IREE_PY_RUNTIME_FLAGS='{text}': {e}"
        ) from e


_load_default_flags_from_env()
