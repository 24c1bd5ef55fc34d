"""`ipu-nb profile-batch PROFILES...`: one profile-query over many profiles (docs/reference/fleet.md#profile-batch).

The query flags are `profile-query`'s own (`ipu_nb._cli.flags.add_query_flags`). Output:
one tab-separated table (labels, path, then profile-query's table columns), ``--json``
(each profile's profile-query report with its path and labels), or ``--parquet OUT``
(the tidy frame of `Fleet.query`). A profile that fails is one line on stderr and the
exit status is 1; the others' results are still written. Paths, labels and reasons in the
text table and on stderr come from files and folders: their control characters are
escaped (`ipu_nb._terminal.printable`); ``--json`` and ``--parquet`` keep them exact.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .._terminal import printable
from . import CliError, output_path, positive_int, status
from .flags import add_query_flags, cli_query, query_errors, write_output

if TYPE_CHECKING:
    import polars as pl

    from .._fleet.fleet import Fleet

__all__ = ["add_fleet_flags", "dask_client", "failure_lines", "open_fleet", "register", "run"]


def _label_source(text: str) -> str:
    from .._fleet.errors import FleetError
    from .._fleet.labels import SIDECAR, LabelPattern

    if text != SIDECAR:
        try:
            LabelPattern(text)
        except FleetError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_fleet_flags(parser: argparse.ArgumentParser) -> None:
    """``--label-from``, ``--workers`` and ``--dask``: how the profiles are labelled and where they run."""
    fleet = parser.add_argument_group("profiles and workers")
    fleet.add_argument(
        "--label-from",
        type=_label_source,
        metavar="PATTERN",
        dest="label_from",
        help="labels from the file name, e.g. 'run-{batch:int}-{seed}.capnp', or 'sidecar' to require "
        "PROFILE.labels.json for each (default: read a sidecar where there is one)",
    )
    fleet.add_argument(
        "--workers", type=positive_int, metavar="N", help="local worker processes (default: one per CPU)"
    )
    fleet.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://10.0.0.5:8786) instead; "
        "its workers must see the profiles at the same absolute paths",
    )


def register(subparsers: Any) -> None:
    """Add `profile-batch` to the `ipu-nb` command line."""
    parser = subparsers.add_parser(
        "profile-batch",
        help="run the same profile-query on many profiles: one table with their labels",
        description=(
            "Run one profile-query on every PROFILE (files, directories of .capnp files, or glob patterns) "
            "in parallel and print one table: each profile's labels and path, then its groups as "
            "profile-query prints them (or JSON with --json, or a Parquet file with --parquet)."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("profiles", nargs="+", metavar="PROFILE", help="profile files, directories or glob patterns")
    shape = add_query_flags(parser, filters_title="filters (applied to every profile, combined with AND)")
    shape.add_argument(
        "--parquet", metavar="OUT", help="write the table as a Parquet file instead (columns as Fleet.query)"
    )
    add_fleet_flags(parser)
    parser.set_defaults(func=run)


@contextmanager
def dask_client(address: str | None) -> Iterator[Any]:
    """A ``dask.distributed.Client`` connected to `address` for the block (None: no client)."""
    if address is None:
        yield None
        return
    try:
        from distributed import Client
    except ImportError:
        raise CliError('--dask needs dask.distributed: pip install "ipu-nb[dask]"', 2) from None
    try:
        client = Client(address, timeout=30)
    except (OSError, TimeoutError, ValueError) as exc:
        raise CliError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    try:
        yield client
    finally:
        client.close()


def open_fleet(args: argparse.Namespace, profiles: list[str], exit_code: int = 1) -> Fleet:
    """The command's `Fleet` of `profiles`, labelled by ``--label-from``; no usable profiles is one line."""
    from .._fleet.errors import FleetError
    from .._fleet.fleet import Fleet

    try:
        return Fleet(profiles, labels=args.label_from, workers=args.workers)
    except FleetError as exc:
        raise CliError(printable(exc), exit_code) from None


def failure_lines(errors: pl.DataFrame) -> list[str]:
    """One line per failed profile, safe to print: its reason, led by its path unless the reason names it already."""
    lines = []
    for path, _, reason in errors.iter_rows():
        named = path in reason or os.path.abspath(path) in reason
        lines.append(printable(reason if named else f"{path}: {reason}"))
    return lines


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _text(fleet: Fleet, results: dict[Any, Any], header: str) -> str:
    """The table: label values, path (control characters escaped), then each group row as profile-query prints it."""
    from .._model.text import path_text

    names = [c for c in fleet.labels.columns if c != "path"]
    labels = {row["path"]: row for row in fleet.labels.iter_rows(named=True)}
    lines = ["\t".join([*map(printable, names), "path", header])]
    for path, result in results.items():
        shown = path_text(path)
        front = "\t".join([*(printable(_cell(labels[shown][n])) for n in names), printable(shown)])
        rows = result.to_text().splitlines()[2 : 2 + result.groups.height]
        lines += [f"{front}\t{row}" for row in rows]
    return "\n".join(lines) + "\n"


def _json(fleet: Fleet, results: dict[Any, Any]) -> str:
    """Each profile's profile-query report (same keys and numbers), with its path and labels, and the errors."""
    from .._model.text import path_text
    from .._query.render import pretty_json

    labels = {row.pop("path"): row for row in fleet.labels.iter_rows(named=True)}
    report = {
        "profiles": [
            {"path": path_text(path), "labels": labels[path_text(path)], "report": json.loads(result.to_json())}
            for path, result in results.items()
        ],
        "errors": [dict(zip(("path", "error", "reason"), row, strict=True)) for row in fleet.errors.iter_rows()],
    }
    return pretty_json(report)


def run(args: argparse.Namespace) -> int:
    """Query every profile; write the results of those that answered; exit 1 if any did not."""
    from .._query import query

    if args.json and args.parquet:
        raise CliError("--json and --parquet are two outputs: choose one", 2)
    if args.samples and not args.json:
        raise CliError("--samples lists each profile's samples in its --json report; add --json", 2)
    out = output_path(args.parquet) if args.parquet else None
    with query_errors():
        q = cli_query(args)
    fleet = open_fleet(args, args.profiles)
    with fleet, dask_client(args.dask) as client:
        if out is not None:
            frame = fleet.query(q, client=client)
        else:
            results = fleet.query_results(q, client=client)
    if out is not None:
        from .._files import atomic_output

        with atomic_output(out) as handle:
            frame.write_parquet(handle)
        status(args, f"wrote {printable(out)}: {frame.height} rows from {len(fleet) - fleet.errors.height} profiles")
    elif args.json:
        write_output(_json(fleet, results))
    else:
        from .._fleet.results import empty_profile

        header = query(empty_profile(), q).to_text().splitlines()[1]
        write_output(_text(fleet, results, header))
    for line in failure_lines(fleet.errors):
        sys.stderr.write(f"ipu-nb profile-batch: error: {line}\n")
    return 1 if fleet.errors.height else 0
