"""The test builders round-trip through pycapnp and the reference decoder."""

from __future__ import annotations

from pathlib import Path

from builders import S, T, columns_from_tiles, write_with_pycapnp

from ipu_nb._load._frames import build_profile
from ipu_nb._load._reference import decode_reference


def test_pycapnp_round_trip_keeps_every_field(tmp_path: Path) -> None:
    tiles = [
        T(64, [S(2**32 - 100, 50, "compute", "op é", "", 3, 1, metadata=[("a", "1"), ("a", "")])]),
        T(0, []),
        T(7, [S(5, 5, "idle", activities=[("receive", 1, 2)], exchange_event_cycles=9)]),
    ]
    columns = columns_from_tiles(tiles, schema_version=4)
    decoded = decode_reference(write_with_pycapnp(columns, tmp_path / "p.capnp"))
    a, b = build_profile(columns), build_profile(decoded)
    assert a.samples.equals(b.samples)
    assert a.metadata.equals(b.metadata)
    assert a.exchange_activities.equals(b.exchange_activities)
    assert a.tiles.equals(b.tiles)
    assert a.samples.get_column("duration").to_list() == [150, 0]
    assert b.metadata.get_column("value").to_list() == ["1", ""]


def test_columns_head_keeps_what_the_first_tiles_own() -> None:
    tiles = [
        T(1, [S(0, 5, metadata=[("a", "1")], activities=[("send", 0, 1)]), S(5, 9, metadata=[("b", "2"), ("c", "")])]),
        T(2, []),
        T(3, [S(0, 4, metadata=[("z", "9")], activities=[("receive", 2, 3)])]),
    ]
    head = build_profile(columns_from_tiles(tiles, schema_version=4).head(2))
    expected = build_profile(columns_from_tiles(tiles[:2], schema_version=4))
    assert head.samples.equals(expected.samples)
    assert head.metadata.equals(expected.metadata)
    assert head.exchange_activities.equals(expected.exchange_activities)
    assert head.tiles.get_column("tile").to_list() == [1, 2]
    assert head.metadata.get_column("name").to_list() == ["a", "b", "c"]
