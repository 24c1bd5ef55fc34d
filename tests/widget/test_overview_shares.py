"""The overview strip's shares: per bin and colour class, the tile-cycles of the class / (tiles × bin width).

Every answer is checked against a plain reference: each sample's overlap with each bin by Python
loops over the profile's own rows, its class read from its kind (inactive compute as idle) or
kernel name, samples not matching the filters as `GREY`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from builders import S, T, profile_from_tiles
from test_widget import Recorder, msg

from ipu_nb._model.vocabulary import NO_KERNEL
from ipu_nb._profile import Profile
from ipu_nb._widget.lod import GREY, KIND_CLASSES, build_index
from ipu_nb._widget.lod.overview_shares import overview_shares
from ipu_nb._widget.protocol import OVERVIEW_SHARES
from ipu_nb._widget.widget import ProfileWidget
from ipu_nb._widget.wire import decode_buffers

KINDS = ["exchange", "compute", "synchronization", "idle"]
Row = dict[str, Any]


def small_profile(seed: int, overlap: bool = False, tiles: int = 5) -> Profile:
    """A few tiles of different samples (gaps, zero-length ones, inactive compute, three kernels) and an empty tile."""
    rng = random.Random(seed)
    out = []
    for t in rng.sample(range(100), tiles):
        cursor, samples = rng.randrange(2000), []
        for i in range(rng.randrange(5, 25)):
            d = rng.choice([0, 1, 7, 60, 333, 2000])
            kind = rng.choice(KINDS)
            meta = [("active", "false")] if kind == "compute" and rng.random() < 0.3 else []
            samples.append(S(cursor, cursor + d, kind=kind, kernel=rng.choice(["a", "b", ""]), phase=i, metadata=meta))
            cursor += rng.randrange(0, d + 1) if overlap else d + rng.choice([0, 0, 13, 900])
        out.append(T(t, samples))
    out.append(T(999, []))  # a tile without samples: a row of gaps, counted in the tiles
    return profile_from_tiles(out)


def kind_class(row: Row) -> int:
    kind = "idle" if row["kind"] == "compute" and row["inactive"] else row["kind"]
    return KIND_CLASSES.index(kind) + 1


def reference(
    profile: Profile,
    bins: int,
    cls: Callable[[Row], int],
    matches: Callable[[Row], bool] = lambda row: True,
) -> dict[int, list[float]]:
    """Per class present, per bin: Σ overlap / (tiles × width); a (tile, bin) covered more than once
    (overlapping samples) counts each sample's part as a share of its cover."""
    rows = profile.samples.to_dicts()
    tiles = profile.tiles.height
    span = max(r["offset"] + r["duration"] for r in rows)
    width = span / bins
    parts: dict[tuple[int, int], list[tuple[int, float]]] = {}  # (tile, bin) -> (class, overlap)
    for r in rows:
        a, b = r["offset"], r["offset"] + r["duration"]
        if b <= a:
            continue
        c = cls(r) if matches(r) else GREY
        for j in range(bins):
            part = min(b, (j + 1) * width) - max(a, j * width)
            if part > 0:
                parts.setdefault((r["tile"], j), []).append((c, part / width))
    out: dict[int, list[float]] = {}
    for (_, j), pieces in parts.items():
        cover = max(1.0, sum(p for _, p in pieces))
        for c, p in pieces:
            out.setdefault(c, [0.0] * bins)[j] += p / cover / tiles
    return out


def as_dict(classes: np.ndarray, shares: np.ndarray) -> dict[int, list[float]]:
    return {int(c): shares[p].tolist() for p, c in enumerate(classes)}


def assert_same(got: dict[int, list[float]], want: dict[int, list[float]]) -> None:
    assert sorted(got) == sorted(want)
    for c in want:
        assert np.allclose(got[c], want[c], rtol=0, atol=1e-9), c


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("bins", [1, 7, 64])
def test_kind_shares_are_each_classs_tile_cycles_per_bin(seed: int, bins: int) -> None:
    profile = small_profile(seed)
    index = build_index(profile.samples, profile.tiles)
    got = overview_shares(index, bins, None, "kind")
    assert got.bins == bins and got.span == index.span and got.classes.dtype == np.uint8
    assert_same(as_dict(got.classes, got.shares), reference(profile, bins, kind_class))
    assert (got.shares.sum(axis=0) <= 1 + 1e-12).all()


def test_kernel_colouring_takes_the_timelines_kernel_classes() -> None:
    profile = small_profile(4)
    index = build_index(profile.samples, profile.tiles)
    legend = index.legend("kernel")

    def kernel_class(row: Row) -> int:
        return legend.index(row["kernel"] or NO_KERNEL) + 1

    got = overview_shares(index, 9, None, "kernel")
    assert_same(as_dict(got.classes, got.shares), reference(profile, 9, kernel_class))
    # The same cycles, another partition: each bin's total is the kind colouring's.
    kinds = overview_shares(index, 9, None, "kind")
    assert np.allclose(got.shares.sum(axis=0), kinds.shares.sum(axis=0), rtol=0, atol=1e-12)


def test_samples_not_matching_the_filters_are_grey() -> None:
    profile = small_profile(5)
    index = build_index(profile.samples, profile.tiles)
    kernels = dict(zip(profile.samples.get_column("sample"), profile.samples.get_column("kernel"), strict=True))
    matched = np.array([kernels[int(s)] == "a" for s in index.sample])
    got = overview_shares(index, 11, matched, "kind")
    want = reference(profile, 11, kind_class, lambda row: row["kernel"] == "a")
    assert GREY in want and got.classes[0] == GREY
    assert_same(as_dict(got.classes, got.shares), want)


def test_overlapping_samples_count_as_shares_of_their_cover() -> None:
    profile = small_profile(6, overlap=True)
    index = build_index(profile.samples, profile.tiles)
    assert index.overlaps
    got = overview_shares(index, 16, None, "kind")
    assert_same(as_dict(got.classes, got.shares), reference(profile, 16, kind_class))
    assert (got.shares.sum(axis=0) <= 1 + 1e-12).all()


def test_a_profile_of_zero_length_samples_has_no_planes() -> None:
    profile = profile_from_tiles([T(0, [S(5, 5, kind="compute")]), T(1, [])])
    index = build_index(profile.samples, profile.tiles)
    got = overview_shares(index, 4, None, "kind")
    assert got.classes.tolist() == [] and got.shares.shape == (0, 4)


# ---- the push: what the widget sends, for the colouring and filters shown ----------------------


def overview_of(widget: ProfileWidget, recorder: Recorder) -> tuple[dict[str, Any], dict[int, list[float]]]:
    header, buffers = recorder.last("overview")
    decoded = decode_buffers(OVERVIEW_SHARES, header, buffers)
    shares = decoded["shares"].reshape(header["planes"], header["bins"]).astype(np.float64)
    return header, as_dict(decoded["classes"], shares)


def assert_close_f32(got: dict[int, list[float]], want: dict[int, list[float]]) -> None:
    assert sorted(got) == sorted(want)
    for c in want:
        assert np.allclose(got[c], want[c], rtol=0, atol=1e-6), c


def test_the_push_follows_the_colouring_and_the_filters() -> None:
    profile = small_profile(7)
    widget = ProfileWidget(profile)
    recorder = Recorder(widget)
    window = {"type": "window", "start": 0, "end": widget.view[1], "pixels": 100}
    msg(widget, {"type": "hello"})
    assert widget._side.wait()
    header, got = overview_of(widget, recorder)
    assert header["color_by"] == "kind" and header["bins"] == 1024 and header["span"] == widget.view[1]
    assert_close_f32(got, reference(profile, 1024, kind_class))

    recorder.sent.clear()
    widget.color_by = "kernel"  # after the timeline's next window, coloured as it is
    assert [c["type"] for c, _ in recorder.sent] == []
    msg(widget, {**window, "id": 1})
    assert widget._side.wait()
    sent = [c["type"] for c, _ in recorder.sent]
    assert sent[0] == "window" and sent.count("overview") == 1
    legend = widget._shown_now().side.index.legend("kernel")
    header, got = overview_of(widget, recorder)
    assert header["color_by"] == "kernel"
    assert_close_f32(got, reference(profile, 1024, lambda row: legend.index(row["kernel"] or NO_KERNEL) + 1))

    widget.filters = {"kind": "compute"}
    msg(widget, {**window, "id": 2})
    assert widget._side.wait()
    header, got = overview_of(widget, recorder)
    want = reference(
        profile, 1024, lambda row: legend.index(row["kernel"] or NO_KERNEL) + 1, lambda row: row["kind"] == "compute"
    )
    assert GREY in got and header["planes"] == len(want)
    assert_close_f32(got, want)

    widget.filters = {}  # back to a value shown before: the kept answer for it, not the filtered one
    widget.color_by = "kind"
    msg(widget, {**window, "id": 3})
    assert widget._side.wait()
    header, got = overview_of(widget, recorder)
    assert header["color_by"] == "kind"
    assert_close_f32(got, reference(profile, 1024, kind_class))
