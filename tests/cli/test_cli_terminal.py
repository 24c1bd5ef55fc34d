"""Control characters in paths and names never reach the terminal raw: errors, warnings and profile-check's table."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

HOSTILE = "evil\x1b]0;owned\x07\x1b[2J\r\nname"


def test_an_error_naming_a_hostile_path_is_one_escaped_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / f"{HOSTILE}.capnp"
    code, _, err = run_cli(capsys, "profile-query", str(missing))
    assert code != 0
    assert "\x1b" not in err and "\r" not in err and "\x07" not in err
    assert err.count("\n") == 1
    assert "\\x1b]0;owned\\x07" in err


def test_a_usage_error_echoing_a_hostile_value_is_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "profile-query", "x.capnp", "--group-by", HOSTILE)
    assert code == 2
    assert "\x1b" not in err and err.count("\n") == 1


@pytest.mark.parametrize("text", ["plain", "tab\there"])
def test_printable_keeps_printable_text_and_escapes_the_rest(text: str) -> None:
    from ipu_nb._terminal import printable

    shown = printable(text)
    assert shown.isprintable()
    assert (shown == text) == text.isprintable()


def test_profile_checks_table_escapes_paths_and_names() -> None:
    import polars as pl

    from ipu_nb._cli.check import _text

    rows = pl.DataFrame(
        {
            "path": [f"runs/{HOSTILE}.capnp"],
            "name": [HOSTILE],
            "status": ["regressed"],
            "phase_cycles_before": [100],
            "phase_cycles_after": [150],
        }
    )
    table = _text(rows, f"checked 1 profile against {HOSTILE}")
    assert "\x1b" not in table and "\r" not in table and "\x07" not in table
    assert table.count("\n") == 3
