"""The search box's selection: operation or kernel containing a text, case-sensitive or case-folded."""

from __future__ import annotations

import numpy as np
import pytest
from builders import S, T, profile_from_tiles

from ipu_nb._query.search import contains, search_mask

NAMES = [("GEMM block", "gemm_f32"), ("sync", ""), ("Straße copy", "COPY_u64"), ("<img src=x>", "gelu"), ("", "")]


@pytest.fixture(scope="module")
def profile():
    tiles = []
    for t in range(3):
        cursor, samples = 0, []
        for op, kernel in NAMES:
            samples.append(S(cursor, cursor + 10 + t, kind="compute", operation=op, kernel=kernel, phase=1))
            cursor += 10 + t
        tiles.append(T(t, samples))
    return profile_from_tiles(tiles)


def reference(profile, text: str, case_sensitive: bool) -> np.ndarray:
    """Plain Python over every sample, for comparison."""
    fold = (lambda s: s) if case_sensitive else str.casefold
    rows = profile.samples.select("operation", "kernel").cast(str).iter_rows()
    return np.array([fold(text) in fold(op or "") or fold(text) in fold(k or "") for op, k in rows])


@pytest.mark.parametrize("text", ["gemm", "GEMM", "copy", "STRASSE", "straße", "<img", "e", "", "nothing"])
@pytest.mark.parametrize("case_sensitive", [True, False])
def test_search_matches_operation_or_kernel_as_plain_python_does(profile, text, case_sensitive):
    mask = search_mask(profile, text, case_sensitive)
    assert mask.dtype == bool and len(mask) == profile.samples.height
    assert np.array_equal(mask, reference(profile, text, case_sensitive))


def test_case_folding_follows_unicode():
    assert contains("Straße copy", "STRASSE", case_sensitive=False)
    assert not contains("Straße copy", "STRASSE")
    assert contains("GEMM block", "gemm", case_sensitive=False)
    assert not contains("GEMM block", "gemm")
