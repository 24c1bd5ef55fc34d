"""The regression rule of ``ipu-nb profile-check`` (docs/reference/fleet.md#profile-check), exact in integers.

A group regressed when its phase cycles after exceed its phase cycles before by more than
the threshold: ``after > before × (1 + threshold)``, compared as integers times the
threshold's exact fraction (so 103 against 100 at 3% is not a regression, 104 is). A
group the baseline lacks counts as 0 before (so any added group with cycles regressed,
unless added groups are ignored); a group the profile lacks counts as 0 after (never).
Groups with fewer than ``min_cycles`` phase cycles after are not checked.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import polars as pl

__all__ = ["format_threshold", "parse_threshold", "regressed"]

_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def parse_threshold(text: str) -> Fraction:
    """``"3%"`` or ``"0.03"`` as the exact fraction 3/100; a bare number must be below 1 (write ``150%``).

    >>> parse_threshold("2.5%"), parse_threshold("0.025")
    (Fraction(1, 40), Fraction(1, 40))
    """
    body = text.strip()
    percent = body.endswith("%")
    digits = body[:-1].strip() if percent else body
    if not _NUMBER.fullmatch(digits):
        raise ValueError(f"invalid threshold {text!r}: expected a percentage like 3% or a fraction like 0.03")
    value = Fraction(Decimal(digits))
    if percent:
        return value / 100
    if value >= 1:
        raise ValueError(
            f"invalid threshold {text!r}: a fraction must be below 1 (did you mean {digits}%?); "
            "write larger thresholds as percentages, e.g. 150%"
        )
    return value


def format_threshold(threshold: Fraction) -> str:
    """The threshold as a percentage: ``3%``, ``2.5%``, ``0.125%`` (`parse_threshold` makes decimal fractions).

    >>> format_threshold(parse_threshold("0.025"))
    '2.5%'
    """
    percent = threshold * 100
    text = format((Decimal(percent.numerator) / Decimal(percent.denominator)).normalize(), "f")
    return f"{text}%"


def regressed(groups: pl.DataFrame, threshold: Fraction, *, min_cycles: int = 0, count_added: bool = True) -> pl.Series:
    """Which rows of a comparison's groups regressed beyond `threshold` (a boolean column).

    `groups` has `Comparison.groups`' ``status``, ``phase_cycles_before`` and
    ``phase_cycles_after``.
    """
    num, den = threshold.numerator, threshold.denominator
    rows = groups.select(pl.col("status").cast(pl.String), "phase_cycles_before", "phase_cycles_after").iter_rows()
    flags = []
    for status, before, after in rows:
        before, after = before or 0, after or 0
        checked = (status != "added" or count_added) and after >= min_cycles
        flags.append(bool(checked and after * den > before * (den + num)))
    return pl.Series("regressed", flags, dtype=pl.Boolean)
