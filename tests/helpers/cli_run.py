"""Run the `ipu-nb` command line in-process, as a test sees it: exit status, stdout, stderr."""

from __future__ import annotations

import pytest

from ipu_nb._cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`ipu-nb ARGV...` in this process: (exit status, stdout, stderr)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
