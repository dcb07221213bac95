#!/usr/bin/env python3
"""`../shared/tools/opbench.py` with the float loops kept alive.

opbench.py returns the loop counter from its f32/f64 loops, so the compiler
deletes the float op and 46 of its 94 loops time the same empty loop. This
runs the same tool with one change: f32/f64 functions return their
accumulator (bitcast to i32), so the float op stays and is what gets timed.
Integer loops are unchanged.

usage: xtask/opbench_live.py RUN_MODULE_BINARY [opbench.py options]
       (IREE_VENV as for opbench.py; OPBENCH=path/to/opbench.py to override)
"""
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
path = os.environ.get("OPBENCH", os.path.join(here, "..", "..", "shared", "tools", "opbench.py"))
spec = importlib.util.spec_from_file_location("opbench", path)
opbench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(opbench)

DEAD_RETURN = "    vm.return %next : i32"
LIVE_RETURN = {
    "f32": "    %t = vm.bitcast.f32.i32 %r : f32 -> i32\n    vm.return %t : i32",
    "f64": "    %b = vm.bitcast.f64.i64 %r : f64 -> i64\n"
           "    %t = vm.trunc.i64.i32 %b : i64 -> i32\n    vm.return %t : i32",
}
original_func = opbench.func


def live_func(name, t, op):
    text = original_func(name, t, op)
    if t in LIVE_RETURN:
        assert DEAD_RETURN in text, "opbench.py changed its float return"
        text = text.replace(DEAD_RETURN, LIVE_RETURN[t])
    return text


opbench.func = live_func
sys.exit(opbench.main())
