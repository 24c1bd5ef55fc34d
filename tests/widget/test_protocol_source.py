"""The widget protocol is written once (ipu_nb/_widget/protocol.py): generated files are fresh, goldens hold.

The generator writes js/kernel/generated.ts, the reference section of docs/widget-protocol.md
and the golden messages in tests/golden/widget/; these tests regenerate them in memory and
compare, check every golden request with `parse_message` and every golden reply against the
TypedDicts (with a plain checker written here, not the generator's), and check the buffer
layouts Python encodes by against hand-packed bytes.
"""

from __future__ import annotations

import base64
import json
import struct
import sys
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # pragma: no cover - Python 3.10
    from typing_extensions import NotRequired, TypedDict

import numpy as np
import pytest

from ipu_nb._widget import protocol, protocol_doc, protocol_gen, protocol_ts
from ipu_nb._widget.lod import RawWindow, encode_window, unpack_cells
from ipu_nb._widget.lod.shares import ShareWindow
from ipu_nb._widget.messages import Limits, MessageError, parse_message
from ipu_nb._widget.wire import WireError, decode_buffers, encode_buffers, layout_of

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / protocol_gen.GOLDEN_DIRECTORY
REGENERATE = f"stale: run `{protocol_ts.COMMAND}` to regenerate"


def _relative(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


def test_the_typescript_and_the_docs_reference_are_fresh() -> None:
    assert _relative(protocol_gen.stale(ROOT, golden=False)) == [], REGENERATE


def test_the_golden_messages_are_what_the_widget_sends_now() -> None:
    """Checked in a fresh process, as the generator runs: earlier tests' global string categories change label order."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "ipu_nb._widget.protocol_gen", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, f"{REGENERATE}\n{run.stdout}{run.stderr}"


# ---- the golden messages ---------------------------------------------------------------------


def _index() -> dict[str, Any]:
    return json.loads((GOLDEN / "index.json").read_text(encoding="utf-8"))


def _scenarios() -> list[dict[str, Any]]:
    return [json.loads((GOLDEN / name).read_text(encoding="utf-8")) for name in _index()["scenarios"]]


def _sent() -> list[tuple[str, dict[str, Any]]]:
    return [(s["scenario"], m) for s in _scenarios() for m in s["sent"]]


def conforms(value: Any, hint: Any, where: str) -> None:
    """Assert that the JSON `value` has the shape of the annotation `hint` (the wire shape where annotated)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        wires = [a for a in args[1:] if isinstance(a, protocol.Wire)]
        return conforms(value, wires[0].shape if wires else args[0], where)
    if origin is NotRequired:
        return conforms(value, args[0], where)
    if origin is typing.Union or isinstance(hint, types.UnionType):
        problems = []
        for member in args:
            try:
                return conforms(value, member, where)
            except AssertionError as error:
                problems.append(str(error))
        raise AssertionError(f"{where}: {value!r} is none of {hint}: {problems}")
    if hint is type(None):
        assert value is None, f"{where}: {value!r} is not null"
    elif hint is Any:
        pass
    elif hint is bool:
        assert isinstance(value, bool), f"{where}: {value!r} is not a bool"
    elif hint is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{where}: {value!r} is not an int"
    elif hint is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{where}: {value!r} is not a number"
    elif hint is str:
        assert isinstance(value, str), f"{where}: {value!r} is not a string"
    elif origin is Literal:
        assert value in args, f"{where}: {value!r} is not one of {args}"
    elif origin is list:
        assert isinstance(value, list), f"{where}: {value!r} is not a list"
        for i, item in enumerate(value):
            conforms(item, args[0], f"{where}[{i}]")
    elif origin is tuple:
        assert isinstance(value, list) and len(value) == len(args), f"{where}: {value!r} is not {len(args)} items"
        for i, (item, item_hint) in enumerate(zip(value, args, strict=True)):
            conforms(item, item_hint, f"{where}[{i}]")
    elif origin is dict:
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        for key, item in value.items():
            conforms(item, args[1], f"{where}.{key}")
    else:  # a TypedDict: its required keys present, nothing it does not list
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        keys = hint.__required_keys__ | hint.__optional_keys__
        assert hint.__required_keys__ <= set(value) <= keys, f"{where}: keys {sorted(value)} for {hint.__name__}"
        hints = typing.get_type_hints(hint, include_extras=True)
        for key, item in value.items():
            conforms(item, hints[key], f"{where}.{key}")
    return None


def _by_tag(union: Any) -> dict[str, Any]:
    return {typing.get_args(typing.get_type_hints(c)["type"])[0]: c for c in typing.get_args(union)}


REPLIES, REQUESTS = _by_tag(protocol.ToFrontEnd), _by_tag(protocol.FromFrontEnd)


def test_every_golden_reply_has_its_typeddict_shape() -> None:
    seen = set()
    for scenario, entry in _sent():
        message = entry["message"]
        cls = REPLIES[message["type"]]
        conforms(message, cls, f"{scenario}: {cls.__name__}")
        if cls is protocol.WindowReply:  # and the header of its mode, as `protocol.VARIANTS` says
            header = {"raw": protocol.RawHeader, "lod": protocol.LodHeader}[message["mode"]]
            only_header = {k: message[k] for k in typing.get_type_hints(header) if k in message}
            conforms(only_header, header, f"{scenario}: {header.__name__}")
        seen.add(message["type"])
    assert seen == set(protocol.REPLY_TYPES)


def test_every_golden_request_is_what_parse_message_accepts_or_refuses() -> None:
    index = _index()
    limits = Limits(**index["limits"])
    parsed = set()
    for scenario in _scenarios():
        request = scenario["request"]
        if request is None:  # a Python action, no request
            continue
        refused = [m["message"] for m in scenario["sent"] if m["message"]["type"] == "error"]
        if refused:
            with pytest.raises(MessageError):
                parse_message(request, limits)
            assert refused[0]["message"].startswith("MessageError: ")
            continue
        assert type(parse_message(request, limits)).__name__.lower() == request["type"]
        conforms(request, REQUESTS[request["type"]], scenario["scenario"])
        parsed.add(request["type"])
    assert parsed == set(protocol.REQUEST_TYPES)


def test_a_request_without_a_key_its_typeddict_requires_is_refused_naming_it() -> None:
    limits = Limits(**_index()["limits"])
    checked = 0
    for scenario in _scenarios():
        request = scenario["request"]
        if request is None or any(m["message"]["type"] == "error" for m in scenario["sent"]):
            continue
        for key in sorted(REQUESTS[request["type"]].__required_keys__ - {"type"}):
            with pytest.raises(MessageError, match=f"{request['type']} message needs a '{key}' field"):
                parse_message({k: v for k, v in request.items() if k != key}, limits)
            checked += 1
    assert checked >= 20


def test_the_index_lists_each_messages_keys_as_the_typeddicts_have_them() -> None:
    index = _index()
    for union, listed in ((protocol.FromFrontEnd, index["requests"]), (protocol.ToFrontEnd, index["replies"])):
        for cls in typing.get_args(union):
            tag = typing.get_args(typing.get_type_hints(cls)["type"])[0]
            assert listed[tag] == {
                "name": cls.__name__,
                "required": sorted(cls.__required_keys__),
                "optional": sorted(cls.__optional_keys__),
            }


def test_golden_buffers_decode_by_the_layouts_to_the_values_written() -> None:
    used = set()
    for scenario, entry in _sent():
        message, buffers = entry["message"], [base64.b64decode(b) for b in entry["buffers"]]
        layout = layout_of(message)
        if layout is None:
            assert buffers == [] and entry["decoded"] is None, scenario
            continue
        used.add(layout.name)
        arrays = decode_buffers(layout, message, buffers)
        decoded = dict(entry["decoded"])
        if layout is protocol.PACKED_WINDOW:
            cells = unpack_cells(message["planes"] * message["rows"], message["bins"], message["runs"], buffers)
            assert cells.reshape(-1).tolist() == decoded.pop("cells"), scenario
        assert {k: v.tolist() for k, v in arrays.items()} == decoded, scenario
    # The kernel always packs summaries, so no golden has the plain cells layout (tested below).
    assert used == {layout.name for layout in protocol.LAYOUTS} - {protocol.LOD_WINDOW.name}


# ---- the layouts Python encodes by --------------------------------------------------------------


def test_a_raw_window_is_encoded_as_hand_packed_little_endian_arrays() -> None:
    answer = RawWindow(
        start=100,
        end=200,
        sample=np.array([7, 70_000]),
        row=np.array([0, 3]),
        x0=np.array([90.0, 150.0]),
        x1=np.array([120.0, 400.0]),
        cls=np.array([2, 5]),
        matched=np.array([True, False]),
    )
    header, buffers = encode_window(answer)
    assert header == {"mode": "raw", "start": 100, "end": 200, "count": 2}
    assert buffers == [
        struct.pack("<2f", -10.0, 50.0),
        struct.pack("<2f", 20.0, 300.0),
        struct.pack("<2H", 0, 3),
        bytes([2 | 0x80, 5]),
        struct.pack("<2I", 7, 70_000),
    ]


def test_plain_cells_follow_their_layout() -> None:
    planes = np.array([[[1, 2, 3]], [[4, 5, 6]]], dtype=np.uint8)  # two classes' shares of one row's cells
    classes = np.array([0, 3], dtype=np.uint8)
    answer = ShareWindow(start=0, end=9, bins=3, classes=classes, planes=planes, sample_count=4)
    header, buffers = encode_window(answer, compress=False)
    assert (header["planes"], header["classes"], header["rows"]) == (2, [0, 3], 1)
    assert layout_of({"type": "window", **header}) is protocol.LOD_WINDOW
    assert buffers == [bytes([1, 2, 3, 4, 5, 6])]
    assert decode_buffers(protocol.LOD_WINDOW, header, buffers)["cells"].tolist() == [1, 2, 3, 4, 5, 6]


def test_buffers_that_do_not_match_the_header_are_refused_by_name() -> None:
    header = {"type": "search", "sent": 2}
    good = {"start": [1, 2], "end": [3, 4], "row": [0, 1], "sample": [5, 6]}
    assert [len(b) for b in encode_buffers(protocol.SEARCH_MATCHES, header, good)] == [16, 16, 4, 8]
    with pytest.raises(WireError, match="'row': 1 elements, the header says 2"):
        encode_buffers(protocol.SEARCH_MATCHES, header, {**good, "row": [0]})
    with pytest.raises(WireError, match="no column for buffer 'sample'"):
        encode_buffers(protocol.SEARCH_MATCHES, header, {k: v for k, v in good.items() if k != "sample"})
    with pytest.raises(WireError, match="the header's sent as integers"):
        encode_buffers(protocol.SEARCH_MATCHES, {"type": "search", "sent": "2"}, good)
    with pytest.raises(WireError, match="expected 4 buffers, got 3"):
        decode_buffers(protocol.SEARCH_MATCHES, header, [b""] * 3)
    with pytest.raises(WireError, match="'end': 15 bytes"):
        decode_buffers(protocol.SEARCH_MATCHES, header, [bytes(16), bytes(15), bytes(4), bytes(8)])
    with pytest.raises(WireError, match="packed_window header needs runs"):
        decode_buffers(protocol.PACKED_WINDOW, {"mode": "lod", "compressed": "xor-runs"}, [b""] * 3)


def test_a_buffer_only_with_a_header_key_is_left_out_without_it() -> None:
    header = {"type": "window", "mode": "raw", "count": 1}
    columns = {"x0": [0], "x1": [1], "row": [0], "flags": [1], "sample": [9], "label": [4]}
    assert len(encode_buffers(protocol.RAW_WINDOW, header, columns)) == 5
    with_labels = {**header, "labels": ["op"]}
    buffers = encode_buffers(protocol.RAW_WINDOW, with_labels, columns)
    assert decode_buffers(protocol.RAW_WINDOW, with_labels, buffers)["label"].tolist() == [4]


def test_each_message_matches_at_most_one_layout() -> None:
    headers: list[dict[str, Any]] = [
        {"type": "window", "mode": "raw"},
        {"type": "window", "mode": "lod", "compressed": None},
        {"type": "window", "mode": "lod", "compressed": "xor-runs"},
        {"type": "search"},
        {"type": "highlight"},
        {"type": "overview"},
    ]
    assert [layout_of(h) for h in headers] == list(protocol.LAYOUTS)
    assert layout_of({"type": "hover"}) is None and layout_of({"type": "window", "mode": "vector"}) is None
    for layout in protocol.LAYOUTS:
        matching = [
            other
            for other in protocol.LAYOUTS
            if other.message == layout.message and dict(other.when) == dict(layout.when)
        ]
        assert matching == [layout]


# ---- the generator --------------------------------------------------------------------------------


KNOWN = {m.name for m in protocol_ts.messages()}


@pytest.mark.parametrize(
    ("annotation", "written"),
    [
        (int, "number"),
        (list[int | None], "(number | null)[]"),
        (Literal["a", "b"] | None, '"a" | "b" | null'),
        (dict[str, str | int], "Record<string, string | number>"),
        (Annotated[list[Any], protocol.Wire(tuple[str, int])], "[string, number]"),
        (NotRequired[protocol.Area], "Area"),
    ],
)
def test_annotations_are_written_as_typescript(annotation: Any, written: str) -> None:
    assert protocol_ts.ts_type(annotation, "X.y", KNOWN) == written


@pytest.mark.parametrize(
    ("annotation", "problem"),
    [
        (set[int], "X.y: cannot write"),
        (tuple[int, ...], "X.y: a tuple must list its items"),
        (dict[int, str], "X.y: a dict must have str keys"),
        (Literal[1], "X.y: only string literals"),
        (bytes, "X.y: cannot write"),
    ],
)
def test_annotations_json_cannot_hold_are_refused_naming_the_field(annotation: Any, problem: str) -> None:
    with pytest.raises(protocol_ts.ProtocolSourceError, match=problem.replace(".", r"\.")):
        protocol_ts.ts_type(annotation, "X.y", KNOWN)


class _Base(TypedDict):
    """A base."""

    a: int
    """The a."""


class _Child(_Base, total=False):
    """A child."""

    b: list[str]


def test_fields_inheritance_totality_and_docstrings_are_read_from_the_source() -> None:
    child = next(m for m in protocol_ts.messages({"_Base": _Base, "_Child": _Child}) if m.name == "_Child")
    assert child.bases == ("_Base",)
    assert [(f.name, f.required, f.doc) for f in child.fields] == [("a", True, "The a."), ("b", False, "")]
    assert [f.name for f in child.own] == ["b"]


def test_the_window_reply_is_a_union_of_its_headers_variants() -> None:
    text = protocol_ts.typescript()
    raw = text[text.index("export interface RawWindowReply {") :].split("}", 1)[0]
    lod = text[text.index("export interface LodWindowReply {") :].split("}", 1)[0]
    assert "  rows: number;" not in raw and "  labels?: string[];" in raw
    assert "  rows: number;" in lod and '  compressed: "xor-runs" | null;' in lod
    assert "export type WindowReply = RawWindowReply | LodWindowReply;" in text
    assert 'export const checkWindowReply = tagged<WindowReply>("mode", {' in text


def test_no_generated_line_is_wider_than_biome_formats() -> None:
    assert max(len(line) for line in protocol_ts.typescript().splitlines()) <= 120


def test_the_docs_reference_sits_between_its_markers_and_is_refused_without_them() -> None:
    page = f"intro\n{protocol_doc.BEGIN}\nstale words\n{protocol_doc.END}\nafter\n"
    out = protocol_doc.with_reference(page)
    assert out.startswith("intro\n") and out.endswith(f"{protocol_doc.END}\nafter\n") and "stale words" not in out
    assert "| `x0` | f32 | `count` |" in out
    for broken in ("no markers", f"{protocol_doc.END}\n{protocol_doc.BEGIN}", f"{protocol_doc.BEGIN}\n" * 2):
        with pytest.raises(protocol_ts.ProtocolSourceError, match="needs one"):
            protocol_doc.with_reference(broken)


def _fake_checkout(root: Path) -> None:
    (root / "js" / "kernel").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "js/kernel/generated.ts").write_text("// old\n", encoding="utf-8")
    (root / "docs/widget-protocol.md").write_text(f"# p\n{protocol_doc.BEGIN}\n{protocol_doc.END}\n", encoding="utf-8")


def test_the_command_lists_stale_files_then_writes_them(tmp_path, monkeypatch, capsys) -> None:
    _fake_checkout(tmp_path)
    monkeypatch.setattr(protocol_gen, "checkout_root", lambda: tmp_path)
    assert protocol_gen.main(["--check", "--no-golden"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == ["stale: js/kernel/generated.ts", "stale: docs/widget-protocol.md"]
    assert err == f"run `{protocol_ts.COMMAND}` to regenerate\n"
    assert (tmp_path / "js/kernel/generated.ts").read_text(encoding="utf-8") == "// old\n"  # --check writes nothing
    assert protocol_gen.main(["--no-golden"]) == 0
    assert (tmp_path / "js/kernel/generated.ts").read_text(encoding="utf-8") == protocol_ts.typescript()
    capsys.readouterr()
    assert protocol_gen.main(["--check", "--no-golden"]) == 0
    assert capsys.readouterr().out == ""


def test_the_command_refuses_a_page_without_markers_in_one_line(tmp_path, monkeypatch, capsys) -> None:
    _fake_checkout(tmp_path)
    (tmp_path / "docs/widget-protocol.md").write_text("# no markers\n", encoding="utf-8")
    monkeypatch.setattr(protocol_gen, "checkout_root", lambda: tmp_path)
    assert protocol_gen.main(["--no-golden"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs one" in err and "Traceback" not in err
    assert (tmp_path / "js/kernel/generated.ts").read_text(encoding="utf-8") == "// old\n"


def test_an_installed_package_is_told_it_is_not_a_checkout(tmp_path, monkeypatch) -> None:
    fake = tmp_path / "site-packages" / "ipu_nb" / "_widget" / "protocol_gen.py"
    monkeypatch.setattr(protocol_gen, "__file__", str(fake))
    with pytest.raises(protocol_gen.CheckoutError, match="is not an ipu-nb checkout"):
        protocol_gen.checkout_root()


def test_golden_files_no_longer_written_are_removed(tmp_path, monkeypatch) -> None:
    _fake_checkout(tmp_path)
    old = tmp_path / protocol_gen.GOLDEN_DIRECTORY / "gone.json"
    old.parent.mkdir(parents=True)
    old.write_text("{}", encoding="utf-8")
    monkeypatch.setattr("ipu_nb._widget.golden.golden_files", lambda: {"index.json": "{}\n"})
    wanted = protocol_gen.outputs(tmp_path)
    assert wanted[old] is None and wanted[old.parent / "index.json"] == "{}\n"


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX path in the message")
def test_a_path_with_control_characters_is_escaped_in_the_checkout_error(tmp_path, monkeypatch) -> None:
    fake = tmp_path / "a\x1b[2Jb" / "ipu_nb" / "_widget" / "protocol_gen.py"
    monkeypatch.setattr(protocol_gen, "__file__", str(fake))
    with pytest.raises(protocol_gen.CheckoutError) as caught:
        protocol_gen.checkout_root()
    assert "\x1b" not in str(caught.value)
