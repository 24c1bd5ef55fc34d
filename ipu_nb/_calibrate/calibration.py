"""`calibrate`: the newest runtime's `profile-calibrate`, a `Calibration` of kernel-call cycles and its JSON file."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from .._model.json_text import _JSON_ESCAPES
from .._model.vocabulary import camel
from .._query.render import pretty_json
from .measure import measurements

if TYPE_CHECKING:
    from .._model.profile import ProfileData

__all__ = ["DEFAULT_TARGET", "Calibration", "CalibrationError", "calibrate"]

#: The runtime's default ``--target``.
DEFAULT_TARGET = "ipu21"


#: The order statistics of a measurement, after its count (``minimumCycles``… in the file).
_CYCLES = ("minimum_cycles", "median_cycles", "p95_cycles", "maximum_cycles")


class CalibrationError(ValueError):
    """Profiles that cannot be calibrated together: none at all, or clocks that differ."""


class Calibration(pl.DataFrame):
    """Kernel-call measurements for a cost table, as the newest runtime's `profile-calibrate` collates them:
    a DataFrame (one row per (kernel, dimensions), in the runtime's order) that can write the runtime's file.

    Its columns are ``kernel``, ``dimensions`` (a list of {name, value} in name order), ``samples``,
    ``minimum_cycles``, ``median_cycles``, ``p95_cycles`` and ``maximum_cycles``; polars operations on it
    return plain DataFrames. ``target`` and ``build_id`` say what the file says the cycles were measured
    on and with, ``clock_hz`` is the profiles' clock and ``profile_count`` how many were collated.
    """

    target: str
    build_id: str
    clock_hz: int
    profile_count: int

    def __init__(self, measurements: pl.DataFrame, target: str, build_id: str, clock_hz: int, profile_count: int):
        super().__init__(measurements)
        self.target = target
        self.build_id = build_id
        self.clock_hz = clock_hz
        self.profile_count = profile_count

    @property
    def measurements(self) -> pl.DataFrame:
        """The measurements as a plain DataFrame (the same rows)."""
        return pl.DataFrame(self)

    def to_json(self) -> str:
        """The database file's text, exactly as the runtime writes it (pretty, no trailing newline).

        The measurements are laid out in polars, one block per row (a profile can hold one
        per kernel call): serde_json's pretty layout for this one document, strings escaped
        by `ipu_nb._model.json_text`'s table.
        """
        head = pretty_json(
            {"schemaVersion": 1, "target": self.target, "buildId": self.build_id, "clockHz": self.clock_hz}
        )
        blocks = _measurement_blocks(self)
        listed = "[]" if not blocks else "[\n" + ",\n".join(blocks) + "\n  ]"
        return head.removesuffix("\n}\n") + f',\n  "measurements": {listed}\n}}'

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write `to_json` to `path` (UTF-8, replacing it) and return the path.

        >>> calibration = ipu_nb.calibrate([profile], build_id="b1")
        >>> calibration.write("costs.json").read_text().startswith('{\\n  "schemaVersion": 1,')
        True
        """
        out = Path(path)
        out.write_bytes(self.to_json().encode("utf-8"))
        return out


def _json_strings(text: pl.Expr) -> pl.Expr:
    """Each string as a JSON string literal, as `ipu_nb._model.json_text.json_string` writes one."""
    escaped = text.str.replace_many([chr(code) for code in _JSON_ESCAPES], list(_JSON_ESCAPES.values()))
    return pl.concat_str(pl.lit('"'), escaped, pl.lit('"'))


def _measurement_blocks(measurements: pl.DataFrame) -> list[str]:
    """Each measurement as its pretty-printed object, indented as an item of ``measurements``."""
    rows = measurements.with_row_index("_row")
    pair = pl.col("dimensions")
    lines = (
        rows.select("_row", "dimensions")
        .explode("dimensions")
        .filter(pair.is_not_null())
        .select(
            "_row",
            _line=pl.concat_str(
                pl.lit(" " * 10),
                _json_strings(pair.struct.field("name")),
                pl.lit(": "),
                _json_strings(pair.struct.field("value")),
            ),
        )
        .group_by("_row", maintain_order=True)
        .agg(pl.col("_line").str.join(",\n"))
    )
    dimensions = (
        pl.when(pl.col("_line").is_null())
        .then(pl.lit("{}"))
        .otherwise(pl.concat_str(pl.lit("{\n"), pl.col("_line"), pl.lit("\n        }")))
    )
    fields = [("samples", "samples")] + [(camel(c), c) for c in _CYCLES]
    block = pl.concat_str(
        pl.lit('    {\n      "key": {\n        "kernel": '),
        _json_strings(pl.col("kernel")),
        pl.lit(',\n        "dimensions": '),
        dimensions,
        pl.lit("\n      },"),
        *(
            piece
            for i, (name, column) in enumerate(fields)
            for piece in (pl.lit(f'{"," if i else ""}\n      "{name}": '), pl.col(column).cast(pl.String))
        ),
        pl.lit("\n    }"),
    )
    return rows.join(lines, on="_row", how="left", maintain_order="left").select(block).to_series().to_list()


def _opened(source: Any) -> ProfileData:
    if isinstance(source, (str, os.PathLike)):
        from .._profile import open_profile

        return open_profile(os.fspath(source))
    return source


def calibrate(
    profiles: Iterable[ProfileData | str | os.PathLike[str]], target: str = DEFAULT_TARGET, *, build_id: str
) -> Calibration:
    """Collate the compute kernel calls of `profiles` into measurements (docs/reference/head.md#profile-calibrate).

    Parameters
    ----------
    profiles : iterable of Profile or path
        The profiles, all at one clock; paths are opened (`ipu_nb.open_profile`).
    target : str, default "ipu21"
        The target the measurements are for, written into the file.
    build_id : str
        The kernel and runtime build the cycles belong to, written into the file.

    Raises
    ------
    CalibrationError
        No profile, or profiles whose clocks differ.

    >>> calibration = ipu_nb.calibrate([profile], build_id="b1")
    >>> calibration.columns[:3], calibration.profile_count
    (['kernel', 'dimensions', 'samples'], 1)
    """
    if not isinstance(target, str) or not isinstance(build_id, str):
        raise TypeError("target and build_id must be strings")
    if isinstance(profiles, (str, os.PathLike)):
        raise TypeError("profiles must be a list of profiles or paths, not one path")
    opened = [_opened(p) for p in profiles]
    if not opened:
        raise CalibrationError("at least one profile is required")
    clock = opened[0].clock_hz
    if any(p.clock_hz != clock for p in opened):
        raise CalibrationError("profile clock frequencies differ")
    return Calibration(measurements(opened), target, build_id, clock, len(opened))
