"""The synthetic profile generator: realistic IPU workloads as `Columns`, written like the runtime writes them.

`generate` is the entry point (`generate_columns`, `generate_profile`, `demo_profile_path`);
`workloads` turns a model into compiler-like commands (`plan`), `timeline` schedules them
on tiles, `samples` and `vocab` name and measure each step, `build` lays out the columns.
"""

from .generate import GENERATOR_VERSION, demo_profile_path, generate_columns, generate_profile, write_profile

__all__ = ["GENERATOR_VERSION", "demo_profile_path", "generate_columns", "generate_profile", "write_profile"]
