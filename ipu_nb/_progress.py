"""A progress bar for decoding large profiles (tqdm: a widget in notebooks, stderr in terminals)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["AUTO_PROGRESS_BYTES", "progress_bar"]

#: With ``progress=None`` a bar is shown only for files larger than this.
AUTO_PROGRESS_BYTES = 50_000_000


@contextmanager
def progress_bar(show: bool | None, file_bytes: int, description: str) -> Iterator[Callable[[int, int], None] | None]:
    """Yield a ``report(done, total)`` callback in samples (None when no bar is shown)."""
    if show is None:
        show = file_bytes > AUTO_PROGRESS_BYTES
    if not show:
        yield None
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=None, desc=description, unit=" samples", unit_scale=True, file=sys.stderr, leave=False)

    def report(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    try:
        yield report
    finally:
        bar.close()
