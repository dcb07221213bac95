"""HAL replay capture from Python: `HalReplayRecorder` and
`flags.parse_flags("--device_replay_output=...")`; the captures are dumped
and replayed by the installed `iree-dump-replay` and `iree-run-replay`."""

import os
import subprocess
import sys
import sysconfig

import numpy as np

import iree_rust.runtime as rt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
TINY = os.path.join(DATA, "tiny.vmfb")


def script(name):
    return os.path.join(sysconfig.get_path("scripts"), name)


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kwargs)


def dump_and_replay(path):
    """The capture's text dump, after checking that it replays."""
    dump = run([script("iree-dump-replay"), path])
    assert dump.returncode == 0, dump.stderr
    replay = run([script("iree-run-replay"), "--device=local-sync", path])
    assert replay.returncode == 0, replay.stderr
    return dump.stdout


def test_recorder_wraps_a_device(tmp_path):
    path = str(tmp_path / "tiny.ireereplay")
    device = rt.get_driver("local-sync").create_default_device()
    with rt.HalReplayRecorder(path) as recorder:
        recorded = recorder.wrap(device)
        config = rt.Config(device=recorded)
        vm_module = rt.VmModule.mmap(config.vm_instance, TINY)
        ctx = rt.SystemContext(vm_modules=(vm_module,), config=config)
        recorder.scope_begin("execute")
        out = ctx.modules[vm_module.name].mul4(
            np.arange(4, dtype=np.float32), np.full(4, 2, dtype=np.float32)
        )
        np.testing.assert_array_equal(np.asarray(out), [0, 2, 4, 6])
        recorder.scope_end("execute")
        assert recorder.record_count > 0
    text = dump_and_replay(path)
    assert "command_buffer.dispatch" in text or "device.queue_dispatch" in text
    assert "replay.scope_begin" in text


def test_bad_policy_is_refused(tmp_path):
    try:
        rt.HalReplayRecorder(str(tmp_path / "x.ireereplay"), file_policy="sometimes")
    except ValueError as e:
        assert "sometimes" in str(e)
    else:
        raise AssertionError("an unknown file policy was accepted")


def test_device_replay_output_flag_records_new_devices(tmp_path):
    path = str(tmp_path / "flag.ireereplay")
    program = f"""
import numpy as np
import iree_rust.runtime as rt
rt.flags.parse_flags("--device_replay_file_policy=capture-all", "--device_replay_output={path}")
m = rt.load_vm_flatbuffer_file({TINY!r}, driver="local-sync")
print(np.asarray(m.mul4(np.ones(4, dtype=np.float32), np.full(4, 3, dtype=np.float32))))
"""
    result = run([sys.executable, "-c", program])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[3. 3. 3. 3.]"
    text = dump_and_replay(path)
    assert "executable_cache.prepare_executable" in text
