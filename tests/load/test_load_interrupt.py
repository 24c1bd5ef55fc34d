"""Ctrl-C interrupts a long load promptly, with a one-line message, on both text paths.

A load is made long by lifting the traversal budget for a file whose samples all share
one huge text (what the budget exists to refuse): the interner then has hours of
hashing to do. The C interner returns to Python every ``QUANTUM`` bytes of it, and a
cancelled decode stops at the next return, so SIGINT ends the command in moments.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_inputs import shared_step_text

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")

#: Run `ipu-nb profile-inspect argv[1]` with no traversal budget to speak of (argv[2]: text path,
#: argv[3]: workers), printing "loading" first.
LONG_LOAD = r"""
import sys
from ipu_nb._cli import main
import functools
import ipu_nb
from ipu_nb._load import _message, _wire, open_profile
_message.BUDGET_PER_WORD = 1 << 40
# The command line opens profiles through ipu_nb.open_profile: this run's text path is its argument.
ipu_nb.open_profile = functools.partial(open_profile, text_path=sys.argv[2])
_wire.WORKERS = int(sys.argv[3])
print("loading", flush=True)
sys.exit(main(["profile-inspect", sys.argv[1]]))
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("text_path", ["native", "numpy"])
def test_ctrl_c_stops_a_long_load(tmp_path: Path, text_path: str, workers: int) -> None:
    path = tmp_path / "shared.capnp"
    path.write_bytes(shared_step_text(16_000_000))
    env = {**os.environ, "IPU_NB_CACHE": str(tmp_path / "cache")}
    loader = subprocess.Popen(
        [sys.executable, "-c", LONG_LOAD, str(path), text_path, str(workers)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert loader.stdout is not None
    assert loader.stdout.readline() == "loading\n"
    time.sleep(1.5)  # well into the hashing
    assert loader.poll() is None, "the load ended before it could be interrupted"
    loader.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = loader.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        loader.kill()
        loader.communicate()
        pytest.fail("SIGINT did not stop the load within 20 s")
    # Generous (a shared, loaded machine); before the fix one C call hashed for minutes.
    assert time.monotonic() - sent < 10
    assert loader.returncode == 130, err
    assert err == "ipu-nb profile-inspect: interrupted\n"
    assert out == ""
