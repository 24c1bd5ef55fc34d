"""How superstep numbers and strings are written: milliseconds, shares, ratios, shell-ready query flags."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from ipu_nb import Query
from ipu_nb._cli import build_parser
from ipu_nb._supersteps.source import FILTERS, filter_query
from ipu_nb._supersteps.text import cycles_text, kernel_text, ms_text, percent_text, query_flags, ratio_text


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0.0, "0"),
        (0.000935, "0.000935"),
        (0.0009996, "0.00100"),
        (0.21, "0.210"),
        (2.0666, "2.07"),
        (20.666, "20.7"),
        (206.66, "207"),
        (1234.5, "1,234"),
        (999.6, "1,000"),
        (0.00001, "0.0000100"),
    ],
)
def test_ms_text(ms: float, text: str) -> None:
    assert ms_text(ms) == text


@pytest.mark.parametrize(
    ("share", "text"),
    [
        (0.0, "0%"),
        (0.0004, "<0.1%"),
        (0.0005, "0.1%"),
        (0.093, "9.3%"),
        (0.0996, "10%"),
        (0.41, "41%"),
        (12.5, "1,250%"),
    ],
)
def test_percent_text(share: float, text: str) -> None:
    assert percent_text(share) == text


def test_cycles_ratio_and_kernel_text() -> None:
    assert (cycles_text(310000.4), cycles_text(2.5), cycles_text(3.5)) == ("310,000", "2", "4")
    assert (ratio_text(1.0349), ratio_text(23.45), ratio_text(float("inf"))) == ("1.03×", "23.4×", "∞×")
    assert kernel_text("") == "samples without a kernel"
    assert kernel_text('g"\n') == 'kernel "g\\"\\n"'


QUERIES = [
    Query(),
    Query(kind="compute", tiles=(812, 3), phases=(1,)),
    Query(kernel="gemm f32", operation_contains="it's", metadata=(("layer", "3"), ("role", None))),
    Query(kernel="tab\there\nnewline\x01é'\\", metadata=(("k", "v=w"),), at=2**64 - 1),
    Query(kernel="", operation_contains=""),
    Query(operation=("a b", "it's", ""), window=(5, 2**64 - 1)),
]


@pytest.mark.parametrize("q", QUERIES)
def test_query_flags_parse_back_to_the_query(q: Query) -> None:
    flags = query_flags(q)
    # bash itself splits the words (it knows $'…'); the CLI's own parser reads them back
    words = (
        subprocess.run(["bash", "-c", f"printf '%s\\0' profile-supersteps P {flags}"], capture_output=True, check=True)
        .stdout.decode()
        .split("\0")[:-1]
    )
    args = build_parser().parse_args(words)
    assert filter_query(**{name: getattr(args, name) for name in FILTERS}) == filter_query(q)
    if "$'" not in flags:  # plain POSIX quoting: Python's shlex reads it too
        assert shlex.split(flags) == words[2:]


def test_query_flags_spelling() -> None:
    assert query_flags(QUERIES[0]) == ""
    assert query_flags(QUERIES[1]) == "--kind compute --tile 812 --tile 3 --phase 1"
    assert (
        query_flags(QUERIES[2])
        == "--kernel 'gemm f32' --operation-contains 'it'\"'\"'s' --metadata layer=3 --metadata role"
    )
    assert query_flags(QUERIES[3]).startswith("--kernel $'tab\\x09here\\x0anewline\\x01é\\'\\\\' ")
