"""A profile file that changes while it loads is a clear error, never SIGBUS killing the process.

The loader reads through a memory map; touching a page of a mapped file truncated
meanwhile raises SIGBUS. `_mapped` guards the mapping (`_guard.c`) so such reads see
zeros and the load reports "file changed while reading", naming the file. The loads that
truncate run in a fresh interpreter: were the guard to fail, only that process would die
(and the test would say so, rather than taking pytest down with it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._load import _mapped, _wire
from ipu_nb._load._errors import ProfileFormatError
from ipu_nb._load._mapped import open_bytes
from ipu_nb._load._wire import TextPath
from ipu_nb._synth.generate import generate_columns

pytestmark = pytest.mark.skipif(os.name != "posix", reason="truncating a mapped file is a POSIX matter")

#: Load argv[1], truncating it to argv[2] bytes in the middle of decoding a chunk: just before
#: interning a batch of texts, whose bytes are read next (argv[3]: text path; argv[4]: when
#: faulthandler is enabled, if at all: before the load, between a first load and this one, or
#: in the middle of the load).
TRUNCATE_WHILE_LOADING = r"""
import faulthandler, os, shutil, sys
from ipu_nb._load import ProfileFormatError, _wire
path, size, when = sys.argv[1], int(sys.argv[2]), sys.argv[4]
_wire.CHUNK_SAMPLES = 256
column = _wire.text_column_class("numpy" if sys.argv[3] == "numpy" else "auto")
if when == "before":
    faulthandler.enable()
if when == "between":
    shutil.copy(path, path + ".first")
    _wire.decode_file(path + ".first")
    faulthandler.enable()
if when == "during":
    # faulthandler's handler then runs first and dumps every thread's traceback from inside the
    # signal handler, which is not safe while other threads run Python: one worker.
    _wire.WORKERS = 1
calls = []

class Truncating(column):
    def add(self, *args):
        calls.append(1)
        if len(calls) == 5:
            if when == "during":
                faulthandler.enable()  # a handler installed over the guard in the middle of a load
            os.truncate(path, size)
        return super().add(*args)

try:
    _wire.decode_file(path, text_path=Truncating)
    print("accepted")
except ProfileFormatError as exc:
    print("refused:", exc)
"""


@pytest.fixture(scope="module")
def profile_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    columns = generate_columns("mlp", "phase", tiles=16, layers=1, phases=40, seed=5)
    return write_columns(columns, tmp_path_factory.mktemp("changing") / "p.capnp").read_bytes()


def _run(script: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("text_path", ["native", "numpy"])
@pytest.mark.parametrize("keep", [0, 4096, 0.5])
def test_truncated_while_loading(tmp_path: Path, profile_bytes: bytes, text_path: TextPath, keep: float) -> None:
    path = tmp_path / "p.capnp"
    path.write_bytes(profile_bytes)
    size = int(keep * len(profile_bytes)) if isinstance(keep, float) else keep
    done = _run(TRUNCATE_WHILE_LOADING, str(path), str(size), text_path, "never")
    assert done.returncode == 0, f"killed by signal {-done.returncode}" if done.returncode < 0 else done.stderr
    assert done.stdout.startswith("refused:"), done.stdout
    assert f"{path}: file changed while reading" in done.stdout
    assert done.stderr == ""


@pytest.mark.timeout(300)
@pytest.mark.parametrize("when", ["before", "between", "during"])
def test_guard_works_under_faulthandler(tmp_path: Path, profile_bytes: bytes, when: str) -> None:
    # pytest and ipykernel enable faulthandler before any load; so may a user, at any time.
    path = tmp_path / "p.capnp"
    path.write_bytes(profile_bytes)
    done = _run(TRUNCATE_WHILE_LOADING, str(path), "0", "native", when)
    assert done.returncode == 0, f"killed by signal {-done.returncode}" if done.returncode < 0 else done.stderr
    assert "file changed while reading" in done.stdout


#: Print "loading", then load argv[1] whole (the test truncates it meanwhile, from another process),
#: then the outcome and the seconds the load took.
LOAD = r"""
import sys, time
from ipu_nb._load import ProfileFormatError, open_profile
print("loading", flush=True)
t = time.perf_counter()
try:
    open_profile(sys.argv[1], cache=False, progress=False)
    print("accepted")
except ProfileFormatError as exc:
    print("refused:", exc)
print(time.perf_counter() - t)
"""


@pytest.mark.timeout(600)
def test_truncated_by_another_process(tmp_path: Path) -> None:
    columns = generate_columns("mlp", "phase", tiles=128, layers=2, phases=120, seed=6)
    original = write_columns(columns, tmp_path / "original.capnp").read_bytes()
    (tmp_path / "whole.capnp").write_bytes(original)
    untouched = _run(LOAD, str(tmp_path / "whole.capnp"))
    assert untouched.stdout.splitlines()[:2] == ["loading", "accepted"], untouched.stderr
    seconds = float(untouched.stdout.splitlines()[2])
    outcomes = []
    for fraction in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8):  # of the time a load takes: most land mid-load
        path = tmp_path / f"p{fraction}.capnp"
        path.write_bytes(original)
        loader = subprocess.Popen([sys.executable, "-c", LOAD, str(path)], stdout=subprocess.PIPE, text=True)
        assert loader.stdout is not None
        assert loader.stdout.readline() == "loading\n"
        time.sleep(fraction * seconds)
        os.truncate(path, len(original) // 3)
        out, _ = loader.communicate(timeout=300)
        assert loader.returncode == 0, f"killed by signal {-loader.returncode}"
        outcome = out.splitlines()[0]
        changed = outcome.startswith(f"refused: {path}: file changed while reading")
        before = outcome.startswith(f"refused: {path}: truncated:")  # truncated before it was opened
        assert outcome == "accepted" or changed or before, outcome
        outcomes.append("changed" if changed else outcome[:8])
    assert "changed" in outcomes, outcomes  # at least one truncation landed during the load


def test_sigbus_from_elsewhere_still_ends_the_process(tmp_path: Path, profile_bytes: bytes) -> None:
    # The guard handles faults inside its mappings only; any other SIGBUS keeps its default action.
    path = tmp_path / "p.capnp"
    path.write_bytes(profile_bytes)
    script = LOAD + "import os, signal\nos.kill(os.getpid(), signal.SIGBUS)\nprint('survived')\n"
    done = _run(script, str(path))
    assert done.stdout.splitlines()[:2] == ["loading", "accepted"]
    assert done.returncode == -signal.SIGBUS


def test_file_rewritten_in_place_is_reported(tmp_path: Path, profile_bytes: bytes, monkeypatch) -> None:
    # Same size, new bytes (say an editor saving over it): the size and mtime check catches it.
    path = tmp_path / "p.capnp"
    path.write_bytes(profile_bytes)
    monkeypatch.setattr(_wire, "CHUNK_SAMPLES", 256)
    stamp = path.stat().st_mtime_ns

    def rewrite(done: int, total: int) -> None:
        if done:
            os.utime(path, ns=(stamp + 10**9, stamp + 10**9))

    with pytest.raises(ProfileFormatError, match="file changed while reading"):
        _wire.decode_file(path, report=rewrite)


@pytest.mark.parametrize("guarded", [True, False])
def test_unchanged_file_reads_the_same_either_way(tmp_path: Path, profile_bytes: bytes, monkeypatch, guarded) -> None:
    # Without the C library the file is read into memory: same columns, same change check.
    path = tmp_path / "p.capnp"
    path.write_bytes(profile_bytes)
    monkeypatch.setattr(_mapped, "GUARDED", guarded)
    monkeypatch.setattr(_wire, "open_bytes", lambda p: open_bytes(p, guarded))
    columns = _wire.decode_file(path)
    assert columns.operation.to_list() == _wire.decode_bytes(profile_bytes).operation.to_list()
    monkeypatch.setattr(_wire, "CHUNK_SAMPLES", 256)

    def truncate(done: int, total: int) -> None:
        if done:
            os.truncate(path, 100)

    with pytest.raises(ProfileFormatError, match=r"file changed while reading \(now 100 bytes"):
        _wire.decode_file(path, report=truncate)


def test_mappings_are_released(tmp_path: Path, profile_bytes: bytes) -> None:
    # Guard slots are few (64): every load, accepted or refused, must give its slot back.
    path = tmp_path / "p.capnp"
    path.write_bytes(profile_bytes[: len(profile_bytes) // 2])
    for _ in range(100):
        with pytest.raises(ProfileFormatError):
            _wire.decode_file(path)
    with open_bytes(path) as file:
        assert file.slot is not None, "no guard slot left"
    with open_bytes(path, guarded=False) as file:
        assert file.slot is None
        assert isinstance(file.buffer, bytearray)  # unguarded: read whole, not mapped
        assert bytes(file.buffer) == path.read_bytes()
