"""The fleet tests' sweep: which profiles it holds and the file-name pattern of their labels."""

from __future__ import annotations

from pathlib import Path

import ipu_nb

#: (batch, seed) of each profile in the sweep; the batch sets the phase count, so their sizes differ.
SWEEP = [(1, 0), (1, 1), (2, 0), (2, 1), (4, 0), (4, 1)]
#: The labels in the sweep's file names.
PATTERN = "run-{batch:int}-{seed:int}.capnp"


def write_sweep(folder: Path) -> list[Path]:
    """Six small MLP profiles ``run-<batch>-<seed>.capnp`` (16 tiles; 4 + batch phases; the seed varies cycles)."""
    paths = []
    for batch, seed in SWEEP:
        path = folder / f"run-{batch}-{seed}.capnp"
        ipu_nb.generate_profile(path, "mlp", tiles=16, phases=4 + batch, seed=seed, progress=False)
        paths.append(path)
    return paths
