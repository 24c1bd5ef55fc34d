"""The colour classes of colour mode "kernel", one rule for the widget's timeline and `charts.timeline`.

Kernels ranked by total cycles (then name) get classes 1..30 and the colours of
`KERNEL_PALETTE` in order; the rest share class 31, "(other kernels)", in its last colour.
Samples without a kernel are "(no kernel)", drawn in `NO_KERNEL_COLOUR` while it has a class
of its own. The ranking is over the samples given (the widget's: the whole profile).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .chunks import column_chunks
from .palette import KERNEL_PALETTE, NO_KERNEL_COLOUR
from .vocabulary import NO_KERNEL

__all__ = [
    "KERNEL_CLASSES",
    "OTHER_KERNELS",
    "kernel_class_colours",
    "kernel_classes",
    "kernel_colours",
    "ranked_kernels",
]

#: How many kernel classes there are: one per colour of `KERNEL_PALETTE`.
KERNEL_CLASSES = len(KERNEL_PALETTE)
#: The legend's name of the last class when more kernels than classes share it.
OTHER_KERNELS = "(other kernels)"


def ranked_kernels(samples: pl.DataFrame) -> list[tuple[str, int]]:
    """Every distinct ``kernel`` of `samples` ("" for none) with its physical code, by total ``duration``, then name."""
    present = samples.get_column("kernel").unique()  # the distinct kernels first: cheap on a categorical
    codes = present.to_physical().to_numpy().astype(np.int64)
    found = present.cast(pl.String).to_list()
    # Chunk by chunk: no copy of the columns, bincount's float copies stay small. The sums are
    # exact integers (below 2**53).
    totals = np.zeros(int(codes.max()) + 1 if len(codes) else 0)
    for physical, durations in column_chunks(samples, ("kernel", "duration")):
        totals += np.bincount(physical, durations, len(totals))
    named = [(name or "", code) for name, code in zip(found, codes.tolist(), strict=True)]
    return sorted(named, key=lambda nc: (-int(totals[nc[1]]), nc[0]))


def kernel_classes(samples: pl.DataFrame) -> tuple[list[str], np.ndarray]:
    """The legend of the kernel classes (class i + 1 is entry i) and the class (uint8) of each physical kernel code.

    >>> frame = pl.DataFrame({"kernel": ["a", "b", "", "b"], "duration": [5, 3, 1, 4]})
    >>> kernel_classes(frame.with_columns(pl.col("kernel").cast(pl.Categorical)))[0]
    ['b', 'a', '(no kernel)']
    """
    ranked = ranked_kernels(samples)
    top = max((code for _, code in ranked), default=0)
    lookup = np.zeros(top + 1, dtype=np.uint8)
    lookup[[code for _, code in ranked]] = np.minimum(np.arange(1, len(ranked) + 1), KERNEL_CLASSES)
    return _legend([name for name, _ in ranked]), lookup


def kernel_colours(samples: pl.DataFrame) -> dict[str, str]:
    """Each distinct ``kernel`` of `samples` ("" for none) with the ``"#rrggbb"`` its class is drawn in.

    >>> frame = pl.DataFrame({"kernel": ["a", ""], "duration": [5, 3]}).cast({"kernel": pl.Categorical})
    >>> kernel_colours(frame) == {"a": KERNEL_PALETTE[0], "": NO_KERNEL_COLOUR}
    True
    """
    ranked = [name for name, _ in ranked_kernels(samples)]
    colours = kernel_class_colours(_legend(ranked))
    return {name: colours[min(i, KERNEL_CLASSES - 1)] for i, name in enumerate(ranked)}


def _legend(ranked: list[str]) -> list[str]:
    """The legend of kernels in rank order: the first 30, then "(other kernels)" when there are more than 31."""
    names = ranked if len(ranked) <= KERNEL_CLASSES else [*ranked[: KERNEL_CLASSES - 1], OTHER_KERNELS]
    return [n if n else NO_KERNEL for n in names]


def kernel_class_colours(legend: list[str]) -> list[str]:
    """The light theme's ``"#rrggbb"`` of each class of `legend` (as `kernel_classes` names them), as the widget draws.

    >>> kernel_class_colours(["b", "(no kernel)"]) == [KERNEL_PALETTE[0], NO_KERNEL_COLOUR]
    True
    """
    return [
        NO_KERNEL_COLOUR if name == NO_KERNEL else KERNEL_PALETTE[i % KERNEL_CLASSES] for i, name in enumerate(legend)
    ]
