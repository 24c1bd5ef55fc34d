"""The bundled demo profiles: the knobs that make them and what they hold, stated once.

`demo_profile_path`, ``ipu-nb demo --size`` and ``ipu-nb generate --size`` build them from
`DEMO_KNOBS`; help texts, the README and the docs quote `DEMO_FIGURES` (tests check the
figures against the generator's output, and the README against the figures). Importing
this module costs nothing (no numpy), so ``--help`` can use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["DEMO_FIGURES", "DEMO_KNOBS", "DEMO_SIZES", "DEMO_WORKLOAD", "DemoFigures", "DemoSize", "describe_demo"]

DemoSize = Literal["full", "small"]
DEMO_SIZES: tuple[DemoSize, ...] = ("full", "small")

#: What the full demo profile models (the small one is a slice of it).
DEMO_WORKLOAD = "MLP FP32 512x2048x8, phase granularity"

#: `generate_columns` knobs of each demo profile (the generator's defaults fill in the rest).
DEMO_KNOBS: dict[str, dict[str, object]] = {
    "full": {"workload": "mlp", "granularity": "phase"},
    "small": {"workload": "mlp", "granularity": "phase", "tiles": 64, "layers": 2},
}


@dataclass(frozen=True)
class DemoFigures:
    """What a demo profile holds: tile entries, samples and the exact file size in bytes."""

    tiles: int
    samples: int
    file_bytes: int

    def summary(self) -> str:
        """``1,472 tiles, 1,170,240 samples, about 718 MB``: the phrase every mention uses."""
        return f"{self.tiles:,} tiles, {self.samples:,} samples, about {self.file_bytes / 1e6:,.0f} MB"


#: Checked against the generator by tests/synth/test_demo_figures.py (bump with GENERATOR_VERSION).
DEMO_FIGURES: dict[str, DemoFigures] = {
    "full": DemoFigures(tiles=1472, samples=1_170_240, file_bytes=717_861_152),
    "small": DemoFigures(tiles=64, samples=64_320, file_bytes=38_785_488),
}


def describe_demo(size: str) -> str:
    """One line naming the demo profile `size`: its workload and `DemoFigures.summary`."""
    layers = DEMO_KNOBS[size].get("layers")
    part = f", {layers} of its 8 layers" if layers is not None else ""
    return f"{DEMO_WORKLOAD}{part}: {DEMO_FIGURES[size].summary()}"
