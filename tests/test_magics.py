"""%load_ext ipu_nb, %ipu_open and %ipu_query in a real IPython shell."""

from __future__ import annotations

import contextlib
import io

import pytest
from chart_fixtures import HOSTILE, write_hostile
from IPython.testing.globalipapp import start_ipython
from IPython.utils.capture import capture_output

from ipu_nb import Profile, QueryResult, query
from ipu_nb._cli import main as cli_main


@pytest.fixture(scope="module")
def shell():
    ip = start_ipython()
    html = ip.display_formatter.formatters["text/html"]
    enabled, html.enabled = html.enabled, True  # a terminal shell formats only text; a notebook also HTML
    active = ip.display_formatter.active_types
    ip.display_formatter.active_types = [*active, "text/html"]
    ip.run_line_magic("load_ext", "ipu_nb")
    yield ip
    html.enabled, ip.display_formatter.active_types = enabled, active
    ip.run_line_magic("unload_ext", "ipu_nb")


@pytest.fixture(scope="module")
def profile_path(tmp_path_factory):
    return write_hostile(tmp_path_factory.mktemp("magics") / "hostile.capnp")


def run(shell, cell: str):
    with capture_output() as captured:
        result = shell.run_cell(cell)
    return result, captured


def test_ipu_open_stores_the_profile_and_shows_the_widget(shell, profile_path):
    result, captured = run(shell, f"%ipu_open {profile_path}")
    assert result.success
    assert isinstance(shell.user_ns["profile"], Profile)
    assert shell.user_ns["profile"].sample_count == 9
    assert [o.data.keys() >= {"application/vnd.jupyter.widget-view+json"} for o in captured.outputs] == [True]


def test_ipu_open_binds_the_widget_so_its_selections_read_back(shell, profile_path):
    from ipu_nb import ProfileWidget
    from ipu_nb._magics import DEFAULT_WIDGET_NAME

    shell.user_ns.pop(DEFAULT_WIDGET_NAME, None)
    result, captured = run(shell, f"%ipu_open {profile_path}")
    assert result.success
    widget = shell.user_ns[DEFAULT_WIDGET_NAME]
    assert DEFAULT_WIDGET_NAME == "ipu_widget"
    assert isinstance(widget, ProfileWidget) and widget.profile is shell.user_ns["profile"]
    assert captured.stdout.startswith("profile in `profile`, widget in `ipu_widget`: read its selections with")
    # The displayed widget is the bound one: a selection made on it reads back from the variable.
    (output,) = captured.outputs
    assert output.data["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.model_id
    shell.run_cell("ipu_widget.filters = {'kind': 'compute'}")
    assert shell.run_cell("ipu_widget.filtered.equals(profile.filter(kind='compute'))").result is True

    result, captured = run(shell, f"%ipu_open {profile_path} -o p2 -w w2")
    assert result.success and isinstance(shell.user_ns["w2"], ProfileWidget)
    assert shell.user_ns["w2"].profile is shell.user_ns["p2"] and shell.user_ns["w2"] is not widget
    assert "widget in `w2`" in captured.stdout and "profile in `p2`" in captured.stdout
    assert shell.user_ns[DEFAULT_WIDGET_NAME] is widget  # -w leaves the default name alone


def test_ipu_open_with_a_name_and_no_widget_shows_the_escaped_summary(shell, profile_path):
    result, captured = run(shell, f"%ipu_open {profile_path} -o other --no-widget")
    assert result.success
    assert isinstance(shell.user_ns["other"], Profile)
    (output,) = captured.outputs
    document = output.data["text/html"]
    assert "<b>samples</b>=9" in document
    assert "&lt;/script&gt;&lt;script&gt;alert(2)" in document and "<script>alert" not in document


def test_ipu_query_returns_the_same_result_as_the_command_line(shell, profile_path):
    run(shell, f"%ipu_open {profile_path} --no-widget")
    flags = "--group-by kind --sort-by samples --samples 2 --limit 2"
    result, _ = run(shell, f"%ipu_query profile {flags}")
    assert result.success
    answer = result.result
    assert isinstance(answer, QueryResult)
    assert (answer.query.group_by, answer.query.sort_by, answer.query.limit, answer.query.samples) == (
        "kind",
        "samples",
        2,
        2,
    )
    assert answer.groups.get_column("name").to_list() == ["synchronization", "exchange"]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert cli_main(["profile-query", str(profile_path), *flags.split()]) == 0
    assert answer.to_text() == stdout.getvalue()
    # the cell's value is displayed through the result's rich repr: summary and groups table, escaped
    html = shell.display_formatter.format(answer)[0]["text/html"]
    assert "<b>samples</b>=9/9" in html and "synchronization" in html
    assert HOSTILE not in html


def test_ipu_query_takes_the_window_extensions(shell, profile_path):
    run(shell, f"%ipu_open {profile_path} --no-widget")
    result, _ = run(shell, "%ipu_query profile --window 0:100 --clip --operation 'a b' --operation c --group-by tile")
    assert result.success
    q = result.result.query
    assert (q.window, q.clip, q.operation, q.group_by) == ((0, 100), True, ("a b", "c"), "tile")
    result, _ = run(shell, "%ipu_query profile --window 0:100 --group-by tile")
    assert (
        result.success
        and result.result.to_text() == query(shell.user_ns["profile"], window=(0, 100), group_by="tile").to_text()
    )
    result, captured = run(shell, "%ipu_query profile --window 9:3")
    assert not result.success and "invalid window '9:3': START must be less than END" in captured.stderr


def test_ipu_query_accepts_a_path_and_a_variable_holding_a_path(shell, profile_path):
    result, _ = run(shell, f"%ipu_query {profile_path} --kind compute --group-by tile")
    assert result.success and result.result.matched_sample_count == 3
    shell.user_ns["where"] = str(profile_path)
    result, _ = run(shell, "%ipu_query where --tile 2")
    assert result.success and result.result.matched_sample_count == 3
    expected = query(shell.user_ns["profile"], tiles=[2]).groups
    assert result.result.groups.equals(expected)


def test_assignment_keeps_the_result_and_shows_nothing(shell, profile_path):
    run(shell, f"%ipu_open {profile_path} --no-widget")
    result, captured = run(shell, "r = %ipu_query profile --group-by phase")
    assert result.success and result.result is None
    assert isinstance(shell.user_ns["r"], QueryResult)
    assert shell.user_ns["r"].groups.get_column("name").to_list() == ["phase 1/0", "phase 0/0"]
    assert captured.outputs == []
    assert "phase 1/0" not in captured.stdout and "Out[" not in captured.stdout


def _cli_stdout(argv: list[str]) -> str:
    """What `ipu-nb` writes on stdout for `argv`, run in-process."""
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert cli_main(argv) == 0
    return stdout.getvalue()


def test_json_shows_the_command_line_s_json_as_is(shell, profile_path):
    run(shell, f"%ipu_open {profile_path} --no-widget")
    flags = "--group-by kind --sort-by samples --samples 2 --limit 2 --json"
    expected = _cli_stdout(["profile-query", str(profile_path), *flags.split()])
    assert expected.startswith("{") and HOSTILE in expected  # the hostile label, to be shown as is
    result, captured = run(shell, f"%ipu_query profile {flags}")
    assert result.success and result.result == expected
    assert captured.outputs == []  # shown by the displayhook as text, not as a quoted repr or a table
    # IPython starts a multi-line value on the line after its "Out[n]: " prompt
    assert captured.stdout.split("Out[", 1)[1].split("]: ", 1)[1] == "\n" + expected + "\n"


def test_an_assigned_json_result_keeps_the_text_and_shows_nothing(shell, profile_path):
    run(shell, f"%ipu_open {profile_path} --no-widget")
    result, captured = run(shell, "j = %ipu_query profile --group-by tile --json")
    assert result.success and result.result is None
    assert shell.user_ns["j"] == _cli_stdout(["profile-query", str(profile_path), "--group-by", "tile", "--json"])
    assert captured.outputs == [] and captured.stdout == ""


@pytest.mark.parametrize(
    ("cell", "echoed"),
    [
        ("%ipu_query profile --group-by kind", True),  # the cell's value: IPython shows it
        ("%ipu_query profile --group-by kind;", False),  # silenced by the user
        ("%ipu_query profile --group-by kind\nx = 1", False),  # not the last line: like any expression
        ("x = 1\nr2 = %ipu_query profile --group-by kind", False),
    ],
)
def test_the_table_is_shown_only_as_the_cell_s_value(shell, profile_path, cell, echoed):
    run(shell, f"%ipu_open {profile_path} --no-widget")
    result, captured = run(shell, cell)
    assert result.success
    assert captured.outputs == []
    assert isinstance(result.result, QueryResult) is echoed
    assert ("Out[" in captured.stdout) is echoed


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("%ipu_query profile --kind bogus", "ipu_query: argument --kind: invalid choice: 'bogus'"),
        ("%ipu_query profile --bogus", "ipu_query: unrecognized arguments: --bogus"),
        ("%ipu_query profile --metadata =x", "ipu_query: argument --metadata"),
        ("%ipu_query profile --group-by metadata", "ipu_query: --group-by metadata requires --metadata-key NAME"),
        ("%ipu_query no_such_name", "ipu_query: no variable or file named 'no_such_name'"),
        ("%ipu_query {missing}", "ipu_query: profile not found:"),
        ("%ipu_query {corrupt}", "ipu_query: "),
        ("%ipu_query r_is_not_a_profile", "ipu_query: variable 'r_is_not_a_profile' holds a int, not a Profile"),
        ("%ipu_query", "ipu_query: missing SOURCE"),
        ("%ipu_query profile --kernel 'unbalanced", "ipu_query: No closing quotation"),
        ("%ipu_open {missing}", "ipu_open: profile not found:"),
        ("%ipu_open {corrupt}", "ipu_open: "),
        ("%ipu_open {profile} -o 1bad", "ipu_open: -o expects a Python variable name"),
        ("%ipu_open {profile} -w 1bad", "ipu_open: -w expects a Python variable name, got '1bad'"),
        ("%ipu_open {profile} -w class", "ipu_open: -w expects a Python variable name, got 'class'"),
        ("%ipu_open {profile} -o lambda", "ipu_open: -o expects a Python variable name, got 'lambda'"),
        ("%ipu_open {profile} -w w --no-widget", "ipu_open: -w names the widget's variable; with --no-widget"),
        ("%ipu_open {profile} -o same -w same", "ipu_open: -o and -w both name 'same'"),
    ],
)
def test_errors_print_one_line_and_no_traceback(shell, profile_path, tmp_path, cell, message):
    run(shell, f"%ipu_open {profile_path} --no-widget")
    shell.user_ns["r_is_not_a_profile"] = 3
    corrupt = tmp_path / "corrupt.capnp"
    corrupt.write_bytes(b"\x00\x00\x00\x00\xff\xff\x00\x00" + b"\x07" * 40)
    cell = cell.format(missing=tmp_path / "missing.capnp", corrupt=corrupt, profile=profile_path)
    result, captured = run(shell, cell)
    assert not result.success
    lines = captured.stderr.strip().splitlines()
    assert len(lines) == 1, captured.stderr
    assert lines[0].startswith(f"UsageError: {message}"), lines[0]
    assert "Traceback" not in captured.stdout + captured.stderr
    assert captured.outputs == []


def test_an_unused_metadata_key_warns_in_the_flags_words(shell, profile_path):
    run(shell, f"%ipu_open {profile_path} --no-widget")
    result, captured = run(shell, "r = %ipu_query profile --metadata-key layer")
    assert result.success
    assert captured.stderr == "ipu_query: warning: --metadata-key has no effect without --group-by metadata\n"
    assert shell.user_ns["r"].to_text() == query(shell.user_ns["profile"]).to_text()


def test_help_prints_the_flags_and_returns_nothing(shell):
    result, captured = run(shell, "%ipu_query profile --help")
    assert result.success and result.result is None
    assert "--group-by BY" in captured.stdout and captured.stdout.startswith("usage: %ipu_query")


def test_unload_removes_the_magics_and_load_restores_them(shell):
    shell.run_line_magic("unload_ext", "ipu_nb")
    assert not {"ipu_open", "ipu_query"} & set(shell.magics_manager.magics["line"])
    shell.run_line_magic("load_ext", "ipu_nb")
    assert {"ipu_open", "ipu_query"} <= set(shell.magics_manager.magics["line"])


def test_ipu_open_falls_back_to_the_summary_when_the_widget_cannot_load(shell, profile_path, tmp_path, monkeypatch):
    import ipu_nb._widget.widget as widget_module

    monkeypatch.setattr(widget_module, "_BUNDLE", tmp_path / "missing-widget.js")
    result, captured = run(shell, f"%ipu_open {profile_path} -o fallback")
    assert result.success and isinstance(shell.user_ns["fallback"], Profile)
    assert captured.stderr.startswith("ipu_open: widget unavailable (") and captured.stderr.count("\n") == 1
    (output,) = captured.outputs
    assert "<b>samples</b>=9" in output.data["text/html"]
