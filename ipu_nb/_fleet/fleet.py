"""`Fleet`: many profiles with labels, one query or comparison over all of them (docs/reference/fleet.md)."""

from __future__ import annotations

import dataclasses
import os
import string
import weakref
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from .._io.parquet import check_label, default_label
from .._model.text import path_text
from .._model.vocabulary import GROUP_FIELDS
from .._query import Query, QueryError, QueryResult, check_metadata_key, make_query
from .._query.keywords import Filters, QueryFlags
from .._query.signature import keyword_signature
from .._terminal import printable
from .comparison import FleetComparison, resolve_baseline
from .errors import Failure, FleetError, LabelError, NotARegularFileError, errors_frame, failure_of
from .files import check_regular
from .labels import Labels, LabelSource, label_columns, labels_of
from .results import (
    MEMBER,
    PATH,
    answer_columns,
    check_label_names,
    empty_profile,
    summary_frame,
    summary_row,
    tidy,
)
from .runner import Job, LocalPool, run_jobs, worker_count
from .sources import Source, expand_sources
from .tasks import compare_one, parquet_one, query_one

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Fleet"]


class Fleet:
    """Many profiles, each with labels; one query or comparison over all of them, in parallel.

    Parameters
    ----------
    profiles : path, directory, glob pattern, or a list of them
        A directory stands for every ``*.capnp`` file beneath it, a pattern (``runs/*.capnp``,
        ``**`` for any depth) for the files it matches, both sorted by path; a file is
        listed once however often it is named. Nothing is opened yet: profiles load
        lazily, in the workers, through the frame cache (`ipu_nb.open_profile`). Below a
        directory and under ``**`` no directory symlink is followed; an entry that is no
        regular file (a FIFO, a device, a dangling symlink, a symlink loop) is listed and
        is a row of `errors`, never opened.
    labels : None, "sidecar", pattern, mapping or function, default None
        Each profile's labels (docs/reference/fleet.md#labels): None reads the sidecar
        ``<profile>.labels.json`` where there is one; ``"sidecar"`` requires one for
        every profile; a pattern such as ``"run-{batch:int}-{seed}.capnp"`` reads them
        from the file name; a mapping gives them by path; a function maps a `Path` to
        them. Label values are strings, numbers, booleans or null. A sidecar whose label
        is named like a result column (``path``, ``name``, ...) is that profile's error.
    workers : int, optional
        Local worker processes (default: one per CPU, at most one per profile); 1 runs
        everything in this process. Each call can override it. The processes are spawned
        on the first run and kept for the next until `close` (or ``with Fleet(...) as
        fleet:``, or the fleet is garbage-collected).
    progress : bool or None, default None
        A progress bar over the profiles; None shows one when someone watches (a
        terminal or a notebook) and there is more than one profile.

    Attributes
    ----------
    paths : tuple of Path
        The profiles, in the fleet's order.
    labels : pl.DataFrame
        One row per profile: a column per label, then ``path``.
    errors : pl.DataFrame
        ``path``, ``error`` (the exception's type) and ``reason`` (one line) for each
        profile the last run could not answer (unreadable labels and paths that are no
        regular file included, which take part in no run); the others' answers are complete.

    Raises
    ------
    FleetError
        No profiles, a directory without profiles, a pattern that matches nothing (or too
        much to look at), a bad label pattern, or a label given in code (pattern,
        mapping, function) named like a result column.

    Examples
    --------
    >>> fleet = ipu_nb.Fleet(["before.capnp", "after.capnp"], labels="{side}.capnp", workers=1)
    >>> for row in fleet.query(kind="compute", limit=2).select("side", "name", "phase_cycles").rows():
    ...     print(row)
    ('before', 'gemm_f32_accumulate_large_rows', 309421)
    ('before', 'gemm_f32_init_large_rows', 43559)
    ('after', 'gemm_f32_accumulate_large_rows', 292984)
    ('after', 'gemm_f32_init_large_rows', 41307)
    """

    def __init__(
        self,
        profiles: Source | Iterable[Source],
        labels: LabelSource = None,
        *,
        workers: int | None = None,
        progress: bool | None = None,
    ) -> None:
        self.paths: tuple[Path, ...] = tuple(expand_sources(profiles))
        worker_count(workers, 1)  # a bad value is refused now, not at the first run
        self.workers = workers
        self.progress = progress
        refused = self._not_regular(range(len(self.paths)))
        found = labels_of(list(self.paths), labels, reserved=answer_columns(), skip=refused)
        self._labels: list[Labels] = [{} if isinstance(item, Exception) else item for item in found]
        unlabelled = {
            i: failure_of(str(self.paths[i]), item) for i, item in enumerate(found) if isinstance(item, Exception)
        }
        # Profiles that take part in no run: no regular file when the fleet was made, or no labels.
        self._excluded: dict[int, Failure] = dict(sorted({**unlabelled, **refused}.items()))
        columns = label_columns(self._labels)
        check_label_names([c.name for c in columns], list(GROUP_FIELDS))
        self._members = pl.DataFrame(
            [
                *columns,
                pl.Series(PATH, [path_text(p) for p in self.paths], dtype=pl.String),
                pl.Series(MEMBER, range(len(self.paths)), dtype=pl.UInt32),
            ]
        )
        self.errors: pl.DataFrame = errors_frame(self._excluded.values())
        self._pool = LocalPool()
        weakref.finalize(self, self._pool.close)

    # --- what the fleet holds ---------------------------------------------------------------

    @property
    def labels(self) -> pl.DataFrame:
        return self._members.drop(MEMBER)

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self) -> Iterator[Path]:
        return iter(self.paths)

    def __repr__(self) -> str:
        names = [c for c in self._members.columns if c not in (PATH, MEMBER)]
        shown = f"labels {printable(', '.join(names))}" if names else "no labels"
        errors = f"; {self.errors.height} with errors" if self.errors.height else ""
        return f"<Fleet: {len(self.paths)} profiles, {shown}{errors}>"

    def close(self) -> None:
        """Stop the fleet's worker processes (they are kept between runs; the next run starts new ones)."""
        self._pool.close()

    def __enter__(self) -> Fleet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self, member: int | str | os.PathLike[str] | Mapping[str, Any]) -> Any:
        """Open one profile of the fleet (`ipu_nb.open_profile`): by position, path, label value or labels."""
        from .._profile import open_profile

        if isinstance(member, int) and not isinstance(member, bool):
            if not -len(self.paths) <= member < len(self.paths):
                raise FleetError(f"the fleet has {len(self.paths)} profiles; there is no profile {member}")
            path = self.paths[member]
        else:
            path, index = resolve_baseline(member, self.paths, self._labels)
            if index is None:
                raise FleetError(f"{path} is not one of the fleet's profiles")
        check_regular(path)
        return open_profile(path, progress=False)

    # --- running ----------------------------------------------------------------------------

    def _not_regular(self, members: Iterable[int]) -> dict[int, Failure]:
        """The failures of those `members` whose path is no regular file (looked at, never opened)."""
        failures = {}
        for i in members:
            try:
                check_regular(self.paths[i])
            except NotARegularFileError as exc:
                failures[i] = failure_of(str(self.paths[i]), exc)
        return failures

    def _run(
        self,
        task: Any,
        args: Mapping[int, tuple[Any, ...]],
        *,
        what: str,
        client: Any,
        workers: int | None,
        progress: bool | None,
        refused: Mapping[int, Failure] | None = None,
    ) -> dict[int, Any]:
        """Run `task` for each member in `args`; set `errors`; the answers by member position.

        No worker is given a member that is excluded, in `refused`, or no regular file now.
        """
        failures = {**self._excluded, **(refused or {})}
        failures.update(self._not_regular(i for i in args if i not in failures))
        members = [i for i in args if i not in failures]
        jobs = [Job(str(self.paths[i]), os.path.abspath(self.paths[i]), args[i]) for i in members]
        chosen = self.workers if workers is None else workers
        shown = self.progress if progress is None else progress
        results = run_jobs(
            task,
            jobs,
            workers=chosen,
            client=client,
            progress=shown,
            description=f"{what} {len(jobs)} profiles",
            pool=self._pool,
        )
        answers: dict[int, Any] = {}
        for i, job, result in zip(members, jobs, results, strict=True):
            if isinstance(result, Failure):
                failures[i] = dataclasses.replace(result, path=job.shown)
            else:
                answers[i] = result
        self.errors = errors_frame(failures[i] for i in sorted(failures))
        return answers

    @keyword_signature(QueryFlags)
    def query_results(
        self,
        query: Query | None = None,
        *,
        client: Any = None,
        workers: int | None = None,
        progress: bool | None = None,
        **flags: Unpack[QueryFlags],
    ) -> dict[Path, QueryResult]:
        """`ipu_nb.query` on every profile: each profile's whole `QueryResult` (longest samples too), by path.

        Same arguments as `query`; ``samples=N`` is allowed here. Profiles that failed are
        in `errors`, not in the answer.
        """
        q = make_query(query, **flags)
        check_metadata_key(q)
        answers = self._run(
            query_one,
            {i: (q,) for i in range(len(self.paths))},
            what="querying",
            client=client,
            workers=workers,
            progress=progress,
        )
        return {self.paths[i]: answers[i] for i in sorted(answers)}

    @keyword_signature(QueryFlags)
    def query(
        self,
        query: Query | None = None,
        *,
        client: Any = None,
        workers: int | None = None,
        progress: bool | None = None,
        **flags: Unpack[QueryFlags],
    ) -> pl.DataFrame:
        """Run the same `ipu_nb.query` on every profile: one tidy frame of every profile's groups.

        Parameters
        ----------
        query : Query, optional
            The query (default `Query()`); ``**flags`` override its fields, as in `ipu_nb.query`.
        client : dask.distributed.Client, optional
            Run on a Dask cluster instead: one task per profile, which loads and queries it
            on a worker (the workers must see the files at the same absolute paths).
        workers, progress
            Override the fleet's.

        Returns
        -------
        pl.DataFrame
            The label columns, ``path``, then `QueryResult.groups`' columns: each
            profile's groups in its own report order, profiles in the fleet's order;
            every number exactly what `ipu_nb.query` reports for that profile.

        Raises
        ------
        QueryError
            A bad flag, ``group_by="metadata"`` without ``metadata_key``, or ``samples``
            (the longest samples are in `query_results`).
        """
        q = make_query(query, **flags)
        if q.samples:
            raise QueryError("fleet.query returns groups only; use fleet.query_results(samples=N) for the samples")
        results = self.query_results(q, client=client, workers=workers, progress=progress)
        position = {path: i for i, path in enumerate(self.paths)}
        parts = [(position[path], result.groups) for path, result in results.items()]
        from .._query import query as run_query

        return tidy(self._members, parts, run_query(empty_profile(), q).groups)

    @keyword_signature(Filters)
    def compare(
        self,
        baseline: Any,
        by: str = "kernel",
        *,
        metadata_key: str | None = None,
        renames: Mapping[str, str] | None = None,
        allow_clock_mismatch: bool = False,
        client: Any = None,
        workers: int | None = None,
        progress: bool | None = None,
        **filters: Unpack[Filters],
    ) -> FleetComparison:
        """Compare every profile with a baseline (`ipu_nb.compare(baseline, profile, ...)` for each).

        Parameters
        ----------
        baseline : path, Profile, label value or mapping of labels
            The ``before`` side: a fleet member or any other profile file (by path, or a
            `Profile` read from one), or the one member with that label value
            (``baseline=1``) or those labels (``baseline={"batch": 1, "seed": 0}``). A
            path that names a file wins over a label value. The baseline member itself is
            not compared.
        by, metadata_key, renames, allow_clock_mismatch, **filters
            As in `ipu_nb.compare`.
        client, workers, progress
            As in `query`.

        Returns
        -------
        FleetComparison
            ``groups`` (labels, ``path``, `Comparison.groups`' columns) and ``summary``
            (labels, ``path``, one row per profile). A profile that cannot be compared
            (unreadable, another clock, a rename it lacks) is a row of `errors`.

        Raises
        ------
        FleetError
            A baseline that names no profile, or names several.
        ComparisonError, QueryError
            A bad ``by``, filter or rename (as `ipu_nb.compare`).
        ProfileFormatError, OSError
            The baseline cannot be read.
        """
        from .._compare import compare
        from .._compare.align import normalise_renames
        from .._profile import open_profile

        empty = empty_profile()
        template = compare(empty, empty, by, metadata_key, None, allow_clock_mismatch, **filters)
        renamed = dict(normalise_renames(renames))
        label_names = [c for c in self._members.columns if c not in (PATH, MEMBER)]
        check_label_names(label_names, template.groups.columns)
        empty_summary = summary_row(template.summary)
        check_label_names(label_names, list(empty_summary))
        path, member = resolve_baseline(baseline, self.paths, self._labels)
        check_regular(path)  # a FIFO would block the read below
        open_profile(path, progress=False)  # an unreadable baseline is an error now, not one per profile
        options = {
            "by": by,
            "metadata_key": metadata_key,
            "renames": renamed or None,
            "allow_clock_mismatch": allow_clock_mismatch,
            **filters,
        }
        args = {i: (os.path.abspath(path), options) for i in range(len(self.paths)) if i != member}
        answers = self._run(compare_one, args, what="comparing", client=client, workers=workers, progress=progress)
        groups = tidy(self._members, [(i, answers[i][0]) for i in sorted(answers)], template.groups)
        summaries = [(i, summary_frame([summary_row(answers[i][1])], empty_summary)) for i in sorted(answers)]
        summary = tidy(self._members, summaries, summary_frame([], empty_summary))
        return FleetComparison(baseline=path, by=template.by, query=template.query, groups=groups, summary=summary)

    # --- Parquet ----------------------------------------------------------------------------

    def _partition_labels(self, label: str | None) -> tuple[dict[int, str], dict[int, Failure]]:
        """Each member's partition label, and the members whose default label cannot be one (their failures).

        A member takes the `label` template filled with its labels, else its file name
        without suffix (`default_label`). Members that take part in no run get none. A
        template that cannot be filled, or fills a label that cannot be written, is a
        `FleetError`: the request; a file name that cannot be a label is its profile's error.
        """
        members = [i for i in range(len(self.paths)) if i not in self._excluded]
        names: dict[int, str] = {}
        refused: dict[int, Failure] = {}
        if label is None:
            names = {i: default_label(Path(self.paths[i].name)) for i in members}
            if len(set(names.values())) < len(names):
                absolute = {i: Path(os.path.abspath(self.paths[i])) for i in members}
                common = Path(os.path.commonpath(list(absolute.values())))
                names = {i: default_label(absolute[i].relative_to(common)) for i in members}
            for i, name in list(names.items()):
                try:
                    check_label(name)
                except FleetError as exc:
                    del names[i]
                    reason = f"{self.paths[i]}: {exc} (the label taken from its file name; give a label template)"
                    refused[i] = failure_of(str(self.paths[i]), LabelError(reason))
        else:
            if not isinstance(label, str):
                raise FleetError(f"label must be a template string such as 'b{{batch}}-s{{seed}}', got {label!r}")
            try:
                fields = [name for _, name, _, _ in string.Formatter().parse(label) if name is not None]
            except ValueError as exc:
                raise FleetError(f"label template {label!r}: {exc}") from None
            for i in members:
                path = self.paths[i]
                missing = [f for f in fields if f not in self._labels[i]]
                if missing:
                    raise FleetError(f"label template {label!r}: {path} has no label {missing[0]!r}")
                try:
                    names[i] = check_label(label.format_map(self._labels[i]))
                except FleetError as exc:
                    raise FleetError(f"label template {label!r}: {path}: {exc}") from None
                except (ValueError, TypeError, LookupError, AttributeError) as exc:
                    raise FleetError(f"label template {label!r}: {path}: {type(exc).__name__}: {exc}") from None
        seen: dict[str, Path] = {}
        for i, name in names.items():
            if name in seen:
                raise FleetError(f"profiles {seen[name]} and {self.paths[i]} would both be written as label {name!r}")
            seen[name] = self.paths[i]
        return names, refused

    def to_parquet(
        self,
        folder: str | os.PathLike[str],
        *,
        label: str | None = None,
        client: Any = None,
        workers: int | None = None,
        progress: bool | None = None,
    ) -> Path:
        """Write every profile into the Parquet dataset at `folder` (`ipu_nb.scan_parquet` reads it back).

        Each profile is written as `Profile.to_parquet` writes it, under a partition label:
        the `label` template filled with its labels (``"b{batch}-s{seed}"``), by default its
        file name without the suffix (the path below the profiles' common directory when
        two names are the same). Its labels go into the ``profiles`` table. Profiles that
        fail are in `errors`. Returns the folder.
        """
        names, refused = self._partition_labels(label)
        root = Path(folder)
        root.mkdir(parents=True, exist_ok=True)
        absolute = os.path.abspath(root)
        args = {i: (absolute, name, self._labels[i]) for i, name in names.items()}
        self._run(parquet_one, args, what="writing", client=client, workers=workers, progress=progress, refused=refused)
        return root
