"""Process-wide runtime flags, as `iree-run-module` takes them.

This runtime is configured through its API only, so no flag changes
anything: `parse_flags` accepts `--help` and rejects every other flag with
ValueError, as upstream rejects unknown ones. `IREE_PY_RUNTIME_FLAGS`, when
set, is parsed at import.
"""

import os
import shlex

__all__ = ["parse_flags", "FUNCTION_INPUT_VALIDATION"]

FUNCTION_INPUT_VALIDATION = True

_KNOWN = {"help"}


def parse_flags(*flags: str):
    """Parses `--name[=value]` flags; ValueError for unknown ones."""
    for flag in flags:
        if not flag.startswith("--"):
            raise ValueError(f"flag '{flag}' is not of the form --name[=value]")
        name = flag[2:].split("=", 1)[0]
        if name not in _KNOWN:
            raise ValueError(f"flag '{name}' not recognized")


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
