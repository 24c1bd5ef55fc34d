"""Each profile's labels (batch size, seed, commit, ...): from a sidecar JSON file, a file-name pattern,
a mapping or a function, checked and typed into one column per label (docs/reference/fleet.md#labels).

A label is a name and a scalar: a string, an integer, a float, a boolean or null.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from .._io.errors import FleetError, LabelError
from .._io.labels import Labels, LabelValue, checked
from .errors import NotARegularFileError
from .files import file_identity, read_regular

__all__ = [
    "SIDECAR",
    "SIDECAR_MAX_BYTES",
    "SIDECAR_SUFFIX",
    "LabelPattern",
    "LabelSource",
    "Labels",
    "label_columns",
    "labels_of",
    "read_sidecar",
    "sidecar_path",
]

#: The sidecar of ``run.capnp`` is ``run.capnp.labels.json``, beside it.
SIDECAR_SUFFIX = ".labels.json"
#: ``labels=SIDECAR`` requires every profile to have a sidecar (the default reads one where present).
SIDECAR = "sidecar"
#: The largest sidecar read (a JSON object of scalars; anything bigger is no labels file).
SIDECAR_MAX_BYTES = 1 << 20

#: What ``Fleet(..., labels=...)`` takes.
LabelSource = str | Mapping[Any, Mapping[str, Any]] | Callable[[Path], Mapping[str, Any]] | None


def sidecar_path(profile: Path) -> Path:
    """Where the labels of `profile` live: ``<profile>.labels.json`` beside it."""
    return profile.with_name(profile.name + SIDECAR_SUFFIX)


def read_sidecar(profile: Path, *, required: bool = True, reserved: Collection[str] = ()) -> Labels:
    """The labels in `profile`'s sidecar: a JSON object of name → scalar (at most `SIDECAR_MAX_BYTES`).

    Without a sidecar: `LabelError` when `required`, else no labels. A sidecar that is no
    regular file (a FIFO, a device, a dangling symlink, ...) is never opened for reading,
    and a label named like one of `reserved` is refused: both are a `LabelError` naming
    the sidecar.
    """
    path = sidecar_path(profile)
    try:
        raw = read_regular(path, SIDECAR_MAX_BYTES)
    except NotARegularFileError as exc:
        raise LabelError(f"{path}: cannot read labels: {exc.problem}") from None
    except FileNotFoundError:
        if not required:
            return {}
        if not profile.exists():
            raise FileNotFoundError(f"profile not found: {profile}") from None
        raise LabelError(f"{path}: no labels file beside the profile (labels={SIDECAR!r} requires one)") from None
    except OSError as exc:
        raise LabelError(f"{path}: cannot read labels: {exc.strerror or exc}") from None
    if len(raw) > SIDECAR_MAX_BYTES:
        raise LabelError(f"{path}: labels file is larger than {SIDECAR_MAX_BYTES} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise LabelError(f"{path}: not valid JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise LabelError(f"{path}: labels must be a JSON object of name to value, got {type(data).__name__}")
    labels = checked(data, str(path))
    taken = next((name for name in labels if name in reserved), None)
    if taken is not None:
        raise LabelError(f"{path}: label {taken!r} has the name of a result column; rename it")
    return labels


# --- file-name patterns ---------------------------------------------------------------------

_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_TYPES: dict[str, tuple[str, Callable[[str], LabelValue]]] = {
    "str": (r"[^/]+?", str),
    "int": (r"[+-]?[0-9]+", int),
    "float": (r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", float),
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class LabelPattern:
    """A file-name pattern such as ``run-{batch:int}-{seed}.capnp``: literal text and label fields.

    ``{name}`` matches text (a string label), ``{name:int}`` an integer, ``{name:float}``
    a decimal number, ``{}`` any text without making a label; ``{{`` and ``}}`` are
    literal braces. A field never spans a ``/`` and takes as few characters as the rest
    of the pattern allows, left to right. A pattern without ``/`` matches the file name;
    one with ``/`` matches that many trailing components of the path.

    >>> LabelPattern("run-{batch:int}-{seed}.capnp").match(Path("out/run-8-a1.capnp"))
    {'batch': 8, 'seed': 'a1'}
    """

    def __init__(self, pattern: str) -> None:
        if not isinstance(pattern, str):
            raise FleetError(f"a label pattern is a string, got {type(pattern).__name__}")
        self.pattern = pattern
        converters: dict[str, Callable[[str], LabelValue]] = {}
        parts: list[str] = []
        position = 0
        for m in _FIELD.finditer(pattern):
            parts.append(re.escape(pattern[position : m.start()]))
            position = m.end()
            token = m.group(0)
            if token in ("{{", "}}"):
                parts.append(re.escape(token[0]))
                continue
            if m.group(1) is None:
                raise FleetError(f"label pattern {pattern!r}: unmatched {token!r} at {m.start()} (write {token * 2})")
            name, _, kind = m.group(1).partition(":")
            kind = kind or "str"
            if kind not in _TYPES:
                raise FleetError(f"label pattern {pattern!r}: unknown field type {kind!r} (use str, int or float)")
            if not name:
                parts.append(f"(?:{_TYPES[kind][0]})")
                continue
            if not _NAME.fullmatch(name):
                raise FleetError(f"label pattern {pattern!r}: {name!r} is not a label name (letters, digits, _)")
            if name in converters:
                raise FleetError(f"label pattern {pattern!r}: label {name!r} appears twice")
            converters[name] = _TYPES[kind][1]
            parts.append(f"(?P<{name}>{_TYPES[kind][0]})")
        parts.append(re.escape(pattern[position:]))
        if not converters:
            raise FleetError(f"label pattern {pattern!r} has no {{name}} field")
        self.names = tuple(converters)
        self._converters = converters
        self._regex = re.compile("".join(parts), re.DOTALL)
        self._components = pattern.count("/") + 1

    def match(self, path: Path) -> Labels:
        """The labels in `path`'s name, or `LabelError` when it does not match."""
        tail = "/".join(Path(path).parts[-self._components :])
        m = self._regex.fullmatch(tail)
        if m is None:
            raise LabelError(f"{path}: {tail!r} does not match the label pattern {self.pattern!r}")
        return checked({name: self._converters[name](m.group(name)) for name in self.names}, str(path))

    def __repr__(self) -> str:
        return f"LabelPattern({self.pattern!r})"


# --- one source for a whole fleet ----------------------------------------------------------


def _mapping_lookup(source: Mapping[Any, Mapping[str, Any]], paths: list[Path]) -> Callable[[Path], Labels]:
    """Labels from a mapping keyed by path (any spelling of the same file); unknown keys are refused."""
    by_identity: dict[str, Any] = {}
    for key, value in source.items():
        if not isinstance(key, (str, os.PathLike)):
            raise FleetError(f"labels: keys are profile paths, got {type(key).__name__}")
        by_identity[file_identity(key)] = value
    members = {file_identity(p) for p in paths}
    strays = [key for key in source if file_identity(key) not in members]
    if strays:
        raise FleetError(f"labels: {os.fspath(strays[0])} is not one of the fleet's profiles")

    def lookup(path: Path) -> Labels:
        identity = file_identity(path)
        if identity not in by_identity:
            raise LabelError(f"{path}: no labels given for it")
        return checked(by_identity[identity], str(path))

    return lookup


def _reader(source: LabelSource, paths: list[Path], reserved: Collection[str]) -> Callable[[Path], Labels]:
    if source is None or (isinstance(source, str) and source == SIDECAR):
        required = source == SIDECAR
        return lambda path: read_sidecar(path, required=required, reserved=reserved)
    if isinstance(source, str):
        pattern = LabelPattern(source)
        return pattern.match
    if isinstance(source, Mapping):
        return _mapping_lookup(source, paths)
    if callable(source):
        function = source

        def call(path: Path) -> Labels:
            return checked(function(path), str(path))

        return call
    raise FleetError(
        f"labels must be None, {SIDECAR!r}, a file-name pattern, a mapping of path to labels or a function, "
        f"got {type(source).__name__}"
    )


def labels_of(
    paths: list[Path], source: LabelSource, *, reserved: Collection[str] = (), skip: Collection[int] = ()
) -> list[Labels | Exception]:
    """Each profile's labels, or the exception that says why it has none (kept, not raised: one row of errors).

    A sidecar's label named like one of `reserved` (the answers' columns) is that
    profile's error: a file is one profile's problem, while labels given in code (a
    pattern, a mapping, a function) are checked by the caller, as the request's. The
    profiles at the positions in `skip` are not looked at (no labels).

    Raises
    ------
    FleetError
        The source itself is wrong (a bad pattern, a mapping naming a file outside the fleet).
    """
    read = _reader(source, paths, reserved)
    result: list[Labels | Exception] = []
    for i, path in enumerate(paths):
        if i in skip:
            result.append({})
            continue
        try:
            result.append(read(path))
        except (OSError, LabelError) as exc:
            result.append(exc)
        except Exception as exc:  # a user's labels function may raise anything: that profile's error
            result.append(LabelError(f"{path}: the labels function raised {type(exc).__name__}: {exc}"))
    return result


def _dtype(values: Iterable[LabelValue]) -> pl.DataType:
    kinds = {type(v) for v in values if v is not None}
    if not kinds:
        return pl.Null()
    if kinds == {bool}:
        return pl.Boolean()
    if kinds == {int}:
        return pl.Int64()
    if kinds <= {int, float}:
        return pl.Float64()
    return pl.String()


def _as_text(value: LabelValue) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def label_columns(labels: list[Labels]) -> list[pl.Series]:
    """One typed column per label name, in order of first appearance (null where a profile lacks it).

    A column is Boolean, Int64 or Float64 (integers and floats mixed) when all its values
    are of that kind, else String (other values written as text: ``true``, ``8``, ``0.5``).
    """
    names = list(dict.fromkeys(name for row in labels for name in row))
    columns = []
    for name in names:
        values = [row.get(name) for row in labels]
        dtype = _dtype(values)
        if dtype == pl.String():
            values = [_as_text(v) for v in values]
        elif dtype == pl.Float64():
            values = [None if v is None else float(v) for v in values]
        columns.append(pl.Series(name, values, dtype=dtype))
    return columns
