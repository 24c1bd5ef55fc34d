"""Chart benchmark: build time and embedded data of every chart at two profile sizes, measured in one run.

    .venv/bin/python benchmarks/bench_charts.py [--profile PATH]

For the full-size demo profile (1,170,240 samples; or PATH) and a 64-tile slice of it
(the "small" demo), prints per chart: seconds to aggregate and build the Vega-Lite spec,
the rows and bytes of data embedded, and the full/small ratios side by side. The data
ratio stays near 1 (charts embed aggregates, never samples) except for the heat-maps,
which hold one row per tile (1,472 vs 64); the time ratio shows how the polars
aggregation scales with the sample count (~18× more samples).

Then, on the full profile, the cost of making profile strings safe to render
(`ipu_nb._markup.sanitize`: labelling every chart frame, and `safe_spec` on the spec):
best of three builds with the rules and with them replaced by the identity, side
by side, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from timing import best, profile_path  # benchmarks/ is on the path when a benchmark runs

import ipu_nb
from ipu_nb import charts


def _rows(spec: dict) -> int:
    return sum(len(v) for v in spec.get("datasets", {}).values())


def _builders(profile: ipu_nb.Profile) -> dict[str, Callable[[], object]]:
    phase = int(profile.samples.get_column("phase").median() or 0)
    tiles = tuple(profile.tiles.get_column("tile").head(8).to_list())
    return {
        "breakdown by kernel": lambda: charts.breakdown(profile),
        "breakdown by layer": lambda: charts.breakdown(profile, by="metadata", metadata_key="layer"),
        "tile heat-map": lambda: charts.tile_heatmap(profile),
        "heat-map of one phase": lambda: charts.tile_heatmap(profile, phases=(phase,)),
        "duration histogram": lambda: charts.duration_distribution(profile, "kernel"),
        "duration ECDF": lambda: charts.duration_distribution(profile, "kind", style="ecdf"),
        "active tiles": lambda: charts.active_tiles(profile),
        "phase waterfall": lambda: charts.phase_waterfall(profile),
        "gantt (8 tiles, 4 phases)": lambda: charts.gantt(profile, tiles=tiles, phases=tuple(range(phase, phase + 4))),
    }


def _measure(profile: ipu_nb.Profile) -> dict[str, tuple[float, int, int]]:
    out = {}
    for name, build in _builders(profile).items():
        start = time.perf_counter()
        spec = charts.to_spec(build())  # type: ignore[arg-type]
        seconds = time.perf_counter() - start
        out[name] = (seconds, _rows(spec), len(json.dumps(spec)))
    return out


def _best(build: Callable[[], object], repeat: int = 3) -> float:
    return best(lambda: charts.to_spec(build()), repeat, warm_up=False)[0]  # type: ignore[arg-type]


def _sanitise_overhead(profile: ipu_nb.Profile) -> None:
    from unittest import mock

    from ipu_nb._charts import common as _charts_common
    from ipu_nb._charts import spec as _charts_spec

    print(f"\n{'sanitising (full profile)':28} {'with s':>8} {'without':>8} {'ratio':>6}")
    for name, build in _builders(profile).items():
        with_rules = _best(build)
        with (
            mock.patch.object(_charts_common, "label_frame", lambda frame: frame),
            mock.patch.object(_charts_spec, "safe_spec", lambda spec: spec),
        ):
            without = _best(build)
        print(f"{name:28} {with_rules:8.3f} {without:8.3f} {with_rules / max(without, 1e-9):6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", type=Path, help="full-size profile (default: the demo, generated on first use)")
    args = parser.parse_args()
    full = ipu_nb.open_profile(profile_path(args.profile))
    small = ipu_nb.open_profile(ipu_nb.demo_profile_path("small"))
    charts.breakdown(small)  # warm imports and caches outside the timings
    print(f"full: {full.sample_count:,} samples  small: {small.sample_count:,} samples")
    print(f"{'chart':28} {'full s':>8} {'small s':>8} {'ratio':>6} {'rows':>6} {'small':>6} {'kB':>7} {'ratio':>6}")
    big, little = _measure(full), _measure(small)
    for name, (seconds, rows, size) in big.items():
        s_seconds, s_rows, s_size = little[name]
        print(
            f"{name:28} {seconds:8.3f} {s_seconds:8.3f} {seconds / max(s_seconds, 1e-9):6.1f} "
            f"{rows:6d} {s_rows:6d} {size / 1000:7.1f} {size / max(s_size, 1):6.2f}"
        )
    _sanitise_overhead(full)


if __name__ == "__main__":
    main()
