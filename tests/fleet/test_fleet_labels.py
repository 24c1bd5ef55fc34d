"""Labels from each source: sidecar JSON files, file-name patterns, mappings and functions; and the fleet's sources."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from fleet_sweep import PATTERN

from ipu_nb import Fleet, FleetError
from ipu_nb._fleet.labels import LabelPattern, label_columns, sidecar_path
from ipu_nb._fleet.sources import expand_sources


@pytest.fixture
def copies(sweep: list[Path], tmp_path: Path) -> list[Path]:
    """The sweep copied into a fresh directory (so a test can add sidecars)."""
    paths = []
    for path in sweep:
        shutil.copy(path, tmp_path / path.name)
        paths.append(tmp_path / path.name)
    return paths


def _write_sidecar(profile: Path, labels: object) -> None:
    sidecar_path(profile).write_text(json.dumps(labels), encoding="utf-8")


def test_sidecar_is_beside_the_profile() -> None:
    assert sidecar_path(Path("runs/run-8.capnp")) == Path("runs/run-8.capnp.labels.json")


def test_sidecars_where_present_by_default(copies: list[Path]) -> None:
    _write_sidecar(copies[0], {"commit": "a1b2", "batch": 1, "fast": True, "score": 0.5, "note": None})
    _write_sidecar(copies[1], {"commit": "c3d4", "batch": 2, "fast": False, "score": 1})
    fleet = Fleet(copies[:3])
    labels = fleet.labels
    assert labels.columns == ["commit", "batch", "fast", "score", "note", "path"]
    assert labels.schema["batch"] == pl.Int64 and labels.schema["fast"] == pl.Boolean
    assert labels.schema["score"] == pl.Float64  # an int and a float: numbers
    assert labels.rows() == [
        ("a1b2", 1, True, 0.5, None, str(copies[0])),
        ("c3d4", 2, False, 1.0, None, str(copies[1])),
        (None, None, None, None, None, str(copies[2])),  # no sidecar: no labels, no error
    ]
    assert fleet.errors.is_empty()


def test_sidecar_required_and_malformed_ones_are_errors(copies: list[Path]) -> None:
    _write_sidecar(copies[0], {"batch": 1})
    _write_sidecar(copies[1], ["not", "an", "object"])
    sidecar_path(copies[2]).write_text("{broken", encoding="utf-8")
    _write_sidecar(copies[3], {"batch": {"nested": 1}})
    fleet = Fleet(copies[:5], labels="sidecar", workers=1)
    errors = dict(zip(fleet.errors["path"], fleet.errors["reason"], strict=True))
    assert list(errors) == [str(p) for p in copies[1:5]]
    not_object = "labels must be a JSON object of name to value, got list"
    assert errors[str(copies[1])] == f"{sidecar_path(copies[1])}: {not_object}"
    assert errors[str(copies[2])].startswith(f"{sidecar_path(copies[2])}: not valid JSON (")
    assert "label 'batch' must be a string, a number, a boolean or null, got dict" in errors[str(copies[3])]
    assert errors[str(copies[4])] == (
        f"{sidecar_path(copies[4])}: no labels file beside the profile (labels='sidecar' requires one)"
    )
    assert set(fleet.errors["error"]) == {"LabelError"}
    # The unlabelled profiles are skipped by every run, and stay in the errors.
    frame = fleet.query(limit=1)
    assert frame.get_column("path").to_list() == [str(copies[0])]
    assert fleet.errors.height == 4


def test_a_missing_profile_with_a_required_sidecar_says_the_profile_is_missing(copies: list[Path]) -> None:
    gone = copies[0].parent / "gone.capnp"
    fleet = Fleet([gone], labels="sidecar")
    assert fleet.errors.rows() == [(str(gone), "FileNotFoundError", f"profile not found: {gone}")]


def test_a_huge_sidecar_is_refused(copies: list[Path]) -> None:
    sidecar_path(copies[0]).write_text(json.dumps({"x": "y" * (1 << 20)}), encoding="utf-8")
    fleet = Fleet(copies[:1])
    assert fleet.errors["reason"].to_list() == [f"{sidecar_path(copies[0])}: labels file is larger than 1048576 bytes"]


@pytest.mark.parametrize(
    ("pattern", "path", "labels"),
    [
        ("run-{batch:int}-{seed}.capnp", "x/run-8-a1.capnp", {"batch": 8, "seed": "a1"}),
        ("run-{batch:int}-{seed:int}.capnp", "run-+8-007.capnp", {"batch": 8, "seed": 7}),
        ("{model}_{lr:float}.capnp", "bert_1e-3.capnp", {"model": "bert", "lr": 0.001}),
        ("{a}-{b}.capnp", "x-y-z.capnp", {"a": "x", "b": "y-z"}),  # fields take as little as they can, from the left
        ("{}-{b}.capnp", "x-y-z.capnp", {"b": "y-z"}),  # {} matches without making a label
        ("{day}/{run}.capnp", "ci/2024-05-01/n7.capnp", {"day": "2024-05-01", "run": "n7"}),
        ("{{{name}}}.capnp", "{odd}.capnp", {"name": "odd"}),
        ("t{tiles:int}.capnp", "t-3.capnp", {"tiles": -3}),
    ],
)
def test_patterns(pattern: str, path: str, labels: dict[str, object]) -> None:
    assert LabelPattern(pattern).match(Path(path)) == labels


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("run.capnp", "has no {name} field"),
        ("run-{batch:int.capnp", "unmatched '{'"),
        ("run-}{x}", "unmatched '}'"),
        ("{x:hex}.capnp", "unknown field type 'hex'"),
        ("{x}-{x}.capnp", "label 'x' appears twice"),
        ("{1x}.capnp", "'1x' is not a label name"),
    ],
)
def test_bad_patterns(pattern: str, message: str) -> None:
    with pytest.raises(FleetError, match=message.replace("{", r"\{").replace("}", r"\}")):
        LabelPattern(pattern)


def test_pattern_labels_and_a_name_that_does_not_match(sweep: list[Path]) -> None:
    odd = sweep[0].parent / "other.capnp"
    fleet = Fleet([*sweep[:2], odd], labels=PATTERN)
    assert fleet.labels.select("batch", "seed").rows() == [(1, 0), (1, 1), (None, None)]
    assert fleet.errors.rows() == [
        (str(odd), "LabelError", f"{odd}: 'other.capnp' does not match the label pattern {PATTERN!r}")
    ]


def test_mapping_labels_by_any_spelling_of_the_path(sweep: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(sweep[0].parent)
    labels: dict[Path | str, dict[str, object]] = {
        sweep[0]: {"side": "before"},
        os.path.relpath(sweep[1]): {"side": "after", "n": 2},
    }
    fleet = Fleet(sweep[:3], labels=labels)
    assert fleet.labels.select("side", "n").rows() == [("before", None), ("after", 2), (None, None)]
    assert fleet.errors.rows() == [(str(sweep[2]), "LabelError", f"{sweep[2]}: no labels given for it")]
    with pytest.raises(FleetError, match="is not one of the fleet's profiles"):
        Fleet(sweep[:1], labels={sweep[3]: {"side": "x"}})


def test_function_labels(sweep: list[Path]) -> None:
    def labels(path: Path) -> dict[str, object]:
        if path.stem.endswith("-1"):
            raise RuntimeError("no seed 1 here")
        return {"size": path.stat().st_size}

    fleet = Fleet(sweep[:2], labels=labels)
    assert fleet.labels["size"].to_list() == [sweep[0].stat().st_size, None]
    assert fleet.errors["reason"].to_list() == [f"{sweep[1]}: the labels function raised RuntimeError: no seed 1 here"]


def test_label_types_that_disagree_become_strings() -> None:
    columns = label_columns([{"x": 1, "y": True}, {"x": "b", "y": 2.5}, {"x": None}])
    assert [(c.name, c.dtype, c.to_list()) for c in columns] == [
        ("x", pl.String(), ["1", "b", None]),
        ("y", pl.String(), ["true", "2.5", None]),
    ]


def test_labels_named_like_result_columns_are_refused(sweep: list[Path]) -> None:
    with pytest.raises(FleetError, match="label 'name' has the name of a result column"):
        Fleet(sweep[:1], labels={sweep[0]: {"name": "x"}})
    with pytest.raises(FleetError, match="label 'path' has the name"):
        Fleet(sweep[:1], labels="{path}.capnp")


def test_bad_label_sources(sweep: list[Path]) -> None:
    with pytest.raises(FleetError, match="labels must be None, 'sidecar', a file-name pattern"):
        Fleet(sweep, labels=5)  # type: ignore[arg-type]
    with pytest.raises(FleetError, match="keys are profile paths"):
        Fleet(sweep, labels={1: {"a": 1}})


# --- sources --------------------------------------------------------------------------------


def test_directories_and_globs(copies: list[Path]) -> None:
    root = copies[0].parent
    nested = root / "2024" / "05"
    nested.mkdir(parents=True)
    shutil.copy(copies[0], nested / "late.capnp")
    (root / ".hidden").mkdir()
    shutil.copy(copies[0], root / ".hidden" / "skip.capnp")
    (root / "notes.txt").write_text("not a profile")
    everything = sorted([*copies, nested / "late.capnp"])
    assert expand_sources(root) == everything  # recursive, sorted, hidden entries skipped
    assert expand_sources(str(root / "run-1-*.capnp")) == copies[:2]
    assert expand_sources(str(root / "**" / "*.capnp")) == everything
    # The same file named twice (a glob and its path, another spelling) is listed once.
    assert expand_sources([str(root / "run-1-*.capnp"), copies[1], root / "." / copies[0].name]) == copies[:2]
    # A path that does not exist stays (it becomes an error when run).
    assert expand_sources([root / "nope.capnp"]) == [root / "nope.capnp"]


def test_sources_that_hold_nothing(tmp_path: Path) -> None:
    with pytest.raises(FleetError, match=r"directory holds no \.capnp files"):
        Fleet(tmp_path)
    with pytest.raises(FleetError, match="pattern matches no file"):
        Fleet(str(tmp_path / "*.capnp"))
    with pytest.raises(FleetError, match="at least one profile"):
        Fleet([])
    with pytest.raises(FleetError, match="paths, directories or glob patterns, got int"):
        Fleet([3])  # type: ignore[list-item]
