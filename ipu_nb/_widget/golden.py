"""Golden widget messages: what a real `ProfileWidget` sends for each request, on a small synthetic profile.

Each scenario sends one request (or does one thing from Python) and records every message the
widget sends back, with its buffers (base64) and their values decoded by the protocol's layouts.
Both test suites read them: Python checks the requests with `messages.parse_message` and the
replies against the TypedDicts, the front end (js/kernel/golden.test.ts) checks both with the
generated checks and decodes the buffers with the generated layouts. ``index.json`` lists the
scenarios, the limits the requests are checked against and each message's required keys.

Two things are pinned so that the files do not change from run to run: ``cost_ms`` (timings)
is 0 for each block, and the temporary profile's path in a ``code`` reply is ``profile.capnp``.
"""

from __future__ import annotations

import base64
import json
import tempfile
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import protocol
from .lod.codec import unpack_cells
from .messages import Limits, view_limit
from .wire import decode_buffers, layout_of

__all__ = ["PROFILE_KNOBS", "Recorded", "Scenario", "golden_files"]

#: The synthetic profile's generator knobs: one of its cache blocks holds more samples than a
#: raw block may (so it comes as packed cells), and it generates in half a second.
PROFILE_KNOBS: dict[str, Any] = {"workload": "mlp", "granularity": "step", "tiles": 16, "phases": 200, "seed": 0}
_BASELINE_SEED = 1
_FILTERS = {"phases": [0, 1, 2, 3]}
_PATH_SHOWN = "profile.capnp"


@dataclass(frozen=True)
class Recorded:
    """One message the widget sent and its buffers."""

    message: dict[str, Any]
    buffers: list[bytes]


@dataclass(frozen=True)
class Scenario:
    """A named request (or Python action, `does` says which) and what the widget sent for it."""

    name: str
    does: str
    request: dict[str, Any] | None
    sent: list[Recorded]


class _Recorder:
    """A widget whose sends are recorded, and the requests that drive it."""

    def __init__(self, widget: Any, path: Path) -> None:
        self.widget = widget
        self.path = path
        self.sent: list[Recorded] = []
        widget.send = lambda content, buffers=None: self.sent.append(Recorded(content, list(buffers or [])))
        widget.send_state = lambda key=None: None  # no front end: trait echoes go nowhere

    def settle(self) -> None:
        side = getattr(self.widget, "_side", None)
        if side is not None:
            side.wait()

    def run(self, name: str, does: str, request: dict[str, Any] | None, action: Callable[[], Any]) -> Scenario:
        self.settle()
        self.sent.clear()
        action()
        self.settle()
        return Scenario(name, does, request, [self._pinned(r) for r in self.sent])

    def ask(self, name: str, does: str, request: dict[str, Any]) -> Scenario:
        return self.run(name, does, request, lambda: self.widget._handle_custom_msg(request, []))

    def _pinned(self, recorded: Recorded) -> Recorded:
        message = dict(recorded.message)
        if message.get("type") == "blocks":
            message["cost_ms"] = [0.0 for _ in message["cost_ms"]]
        if message.get("type") == "code":
            message["code"] = message["code"].replace(str(self.path), _PATH_SHOWN)
        return Recorded(message, recorded.buffers)


def _scenarios(record: _Recorder, baseline: _Recorder) -> list[Scenario]:
    widget = record.widget
    for view in (widget, baseline.widget):
        view.filters = _FILTERS  # a few phases: the flame graphs stay small, the flags show matching
    info = widget.info
    span, rows = int(info["span"]), list(info["rows"])
    level = max(0, (span - 1).bit_length() - 3)  # one block of 8 bins covers the whole profile
    matching = widget.filtered.sort("offset", "tile")
    one = matching.filter(matching["kind"] == "compute").row(0, named=True)  # a matching sample
    row, x = rows.index(one["tile"]), one["offset"] + one["duration"] // 2
    narrow = {"start": one["offset"], "end": one["offset"] + span // 400, "pixels": 40}
    out = [
        record.ask("hello", "a view opens: every side view", {"type": "hello"}),
        record.ask(
            "window-raw-labels",
            "a narrow window, with operation names",
            {"type": "window", "view": "v1", "id": 1, **narrow, "labels": True},
        ),
        record.ask("window-raw", "the same window without names", {"type": "window", "view": "v1", "id": 2, **narrow}),
        record.ask("hover", "the sample under the mouse", {"type": "hover", "view": "v1", "id": 3, "row": row, "x": x}),
        record.ask("hover-nothing", "no sample there", {"type": "hover", "view": "v1", "id": 4, "row": 0, "x": span}),
        record.ask("pick", "a click: the cursor and the selected sample", {"type": "pick", "row": row, "x": x}),
        record.ask("groups", "the group table", {"type": "groups", "id": 5}),
    ]
    blocks = {"type": "blocks", "view": "v1", "id": 6, "level": level, "bins": 8, "blocks": [0]}
    held = {"labels": False, "filters": widget.filters, "color_by": widget.color_by, "start": 0, "end": span}
    out.append(record.ask("blocks", "one cache block covering the profile (packed cells)", {**blocks, **held}))
    other = {**blocks, **held, "id": 7, "filters": {**widget.filters, "kind": "compute"}}
    out.append(record.ask("blocks-stale", "a block for filters the kernel does not hold", other))
    fine = {**blocks, **held, "id": 8, "level": 0, "bins": 64, "blocks": [one["offset"] // 64], "labels": True}
    out.append(record.ask("blocks-raw", "a block of few samples (raw, with names)", fine))
    text = one["operation"]
    out += [
        record.ask("search", "samples whose operation contains a name", {"type": "search", "id": 9, "text": text}),
        record.ask("fit-matching", "zoom to the matching samples", {"type": "fit", "id": 10, "by": "matching"}),
        record.ask(
            "fit-sample", "zoom to one sample", {"type": "fit", "id": 11, "by": "sample", "value": one["sample"]}
        ),
        record.ask("code", "copy as code", {"type": "code", "id": 12}),
        record.ask("error-unknown", "an unknown message type", {"type": "bogus"}),
        record.ask(
            "error-range",
            "a window outside the profile",
            {"type": "window", "view": "v1", "id": 13, "start": 5, "end": 2 * span + 8, "pixels": 10},
        ),
    ]
    last = matching.row(-1, named=True)
    area = {"start": one["offset"], "end": last["offset"] + last["duration"], "tiles": sorted(rows[::2])}
    out.append(record.run("area", "widget.selection = an area", None, lambda: setattr(widget, "selection", area)))
    out.append(
        record.run(
            "highlight",
            "widget.highlight(three samples)",
            None,
            lambda: widget.highlight(widget.profile.samples.head(3)),
        )
    )
    out.append(record.run("highlight-cleared", "widget.highlight(None)", None, lambda: widget.highlight(None)))
    out.append(
        record.ask("finding", "a click on the best finding (widget.show_finding)", {"type": "finding", "rank": 1})
    )
    out += [
        baseline.ask("baseline-hello", "with a baseline: side views with deltas", {"type": "hello"}),
        baseline.ask("baseline-groups", "with a baseline: the group table with deltas", {"type": "groups", "id": 1}),
    ]
    return out


def _decoded(message: dict[str, Any], buffers: list[bytes]) -> dict[str, list[Any]] | None:
    layout = layout_of(message)
    if layout is None:
        return None
    out = {name: array.tolist() for name, array in decode_buffers(layout, message, buffers).items()}
    if layout is protocol.PACKED_WINDOW:
        out["cells"] = (
            unpack_cells(message["planes"] * message["rows"], message["bins"], message["runs"], buffers)
            .reshape(-1)
            .tolist()
        )
    return out


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _scenario_text(scenario: Scenario) -> str:
    entries = []
    for recorded in scenario.sent:
        entry = {
            "message": recorded.message,
            "buffers": [base64.b64encode(b).decode("ascii") for b in recorded.buffers],
            "decoded": _decoded(recorded.message, recorded.buffers),
        }
        entries.append("    " + _line(entry))
    head = [f'  "scenario": {_line(scenario.name)},', f'  "does": {_line(scenario.does)},']
    head.append(f'  "request": {_line(scenario.request)},')
    return "\n".join(["{", *head, '  "sent": [', ",\n".join(entries), "  ]", "}"]) + "\n"


def _keys(union: Any) -> dict[str, dict[str, list[str]]]:
    out = {}
    for cls in typing.get_args(union):
        tag = typing.get_args(typing.get_type_hints(cls)["type"])[0]
        out[tag] = {
            "name": cls.__name__,
            "required": sorted(cls.__required_keys__),
            "optional": sorted(cls.__optional_keys__),
        }
    return out


def _index(limits: Limits, scenarios: list[Scenario]) -> str:
    index = {
        "written_by": "python -m ipu_nb._widget.protocol_gen",
        "profile": PROFILE_KNOBS,
        "limits": {"end": limits.end, "rows": limits.rows},
        "scenarios": [f"{s.name}.json" for s in scenarios],
        "requests": _keys(protocol.FromFrontEnd),
        "replies": _keys(protocol.ToFrontEnd),
    }
    return json.dumps(index, indent=2, ensure_ascii=False) + "\n"


def golden_files() -> dict[str, str]:
    """Every golden file's name (in tests/golden/widget/) and text, from a fresh run of the widget."""
    from .._profile import open_profile
    from .._synth import generate_profile
    from .widget import ProfileWidget

    knobs = dict(PROFILE_KNOBS)
    workload, granularity = knobs.pop("workload"), knobs.pop("granularity")
    with tempfile.TemporaryDirectory(prefix="ipu-nb-golden-") as directory:
        after = generate_profile(Path(directory) / "after.capnp", workload, granularity, progress=False, **knobs)
        knobs["seed"] = _BASELINE_SEED
        before = generate_profile(Path(directory) / "before.capnp", workload, granularity, progress=False, **knobs)
        profile = open_profile(after, cache=False)
        widget = ProfileWidget(profile)
        compared = ProfileWidget(profile, baseline=open_profile(before, cache=False))
        try:
            scenarios = _scenarios(_Recorder(widget, after), _Recorder(compared, after))
            limits = Limits(end=view_limit(widget.info["span"]), rows=len(widget.info["rows"]))
        finally:
            widget.close()
            compared.close()
    files = {f"{s.name}.json": _scenario_text(s) for s in scenarios}
    files["index.json"] = _index(limits, scenarios)
    return files
