"""The runtime's Cap'n Proto schema, loaded through pycapnp (the reference decoder and tests)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["load_schema", "schema_path"]


def schema_path() -> Path:
    """Path of `profile.capnp`: packaged copy in a wheel, `schema/` in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "profile.capnp", here.parent / "schema" / "profile.capnp"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("profile.capnp not found next to ipu_nb or in schema/")


@cache
def load_schema() -> Any:
    """The pycapnp module for the profile schema (imported lazily: pycapnp is slow to load)."""
    import capnp

    capnp.remove_import_hook()
    return capnp.load(str(schema_path()))
