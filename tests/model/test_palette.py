"""`ipu_nb.palette()`: one colour per kind, the one the charts use."""

from __future__ import annotations

import re

import ipu_nb
from ipu_nb._charts.common import KIND_COLORS, kind_scale
from ipu_nb._model.vocabulary import KINDS


def test_every_kind_has_a_distinct_hex_colour() -> None:
    colours = ipu_nb.palette()
    assert tuple(colours) == KINDS
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in colours.values())
    assert len(set(colours.values())) == len(KINDS)


def test_the_charts_use_the_palette() -> None:
    scale = kind_scale().to_dict()
    assert dict(zip(scale["domain"], scale["range"], strict=True)) == ipu_nb.palette()
    assert ipu_nb.palette() == KIND_COLORS


def test_a_changed_copy_changes_nothing_else() -> None:
    colours = ipu_nb.palette()
    colours["compute"] = "#000000"
    assert ipu_nb.palette()["compute"] != "#000000"
