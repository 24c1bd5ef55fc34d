"""The progress bar of long work (decoding, generating, writing): tqdm, a widget in notebooks, stderr in terminals.

Public functions take ``progress: bool | None`` (show a bar; None: only for large work);
the work itself reports through a `Report` callback, ``report(done, total)``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["AUTO_PROGRESS_BYTES", "AUTO_PROGRESS_SAMPLES", "Report", "progress_bar"]

#: With ``progress=None`` a file is read with a bar only when it is larger than this.
AUTO_PROGRESS_BYTES = 50_000_000
#: With ``progress=None`` a profile is generated or written with a bar only from this many samples.
AUTO_PROGRESS_SAMPLES = 200_000

#: ``report(done, total)``: how far long work has come, in its own unit.
Report = Callable[[int, int], None]


@contextmanager
def progress_bar(
    show: bool | None, description: str, *, large: bool, unit: str = " samples", unit_scale: bool = True
) -> Iterator[Report | None]:
    """Yield a `Report` feeding a bar on stderr, or None when no bar is shown.

    `show` None shows one only when the work is `large` (the caller's judgement).
    """
    if show is None:
        show = large
    if not show:
        yield None
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=None, desc=description, unit=unit, unit_scale=unit_scale, file=sys.stderr, leave=False)

    def report(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    try:
        yield report
    finally:
        bar.close()
