"""The progress bar of long work (decoding, generating, writing): tqdm, a widget in notebooks, stderr in terminals.

Public functions take ``progress: bool | None`` (show a bar; None: only for large work,
and only where someone watches: stderr is a terminal or the code runs in a Jupyter
kernel, so a redirected stderr never fills with ``\r`` frames); the work itself reports
through a `Report` callback, ``report(done, total)``. `silenced` turns every bar off
(the command line's ``-q/--quiet``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["AUTO_PROGRESS_BYTES", "AUTO_PROGRESS_SAMPLES", "Report", "progress_bar", "silenced", "watched"]

#: With ``progress=None`` a file is read with a bar only when it is larger than this.
AUTO_PROGRESS_BYTES = 50_000_000
#: With ``progress=None`` a profile is generated or written with a bar only from this many samples.
AUTO_PROGRESS_SAMPLES = 200_000

#: ``report(done, total)``: how far long work has come, in its own unit.
Report = Callable[[int, int], None]


_silenced = False


@contextmanager
def silenced(quiet: bool = True) -> Iterator[None]:
    """While active (and `quiet`), no bar is shown, whatever ``progress`` asks for."""
    global _silenced
    before, _silenced = _silenced, _silenced or quiet
    try:
        yield
    finally:
        _silenced = before


def watched() -> bool:
    """Whether someone sees a bar: stderr is a terminal, or this is a Jupyter kernel (tqdm draws a widget)."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # a replaced or closed stderr
        pass
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


@contextmanager
def progress_bar(
    show: bool | None, description: str, *, large: bool, unit: str = " samples", unit_scale: bool = True
) -> Iterator[Report | None]:
    """Yield a `Report` feeding a bar on stderr, or None when no bar is shown.

    `show` None shows one only when the work is `large` (the caller's judgement) and
    someone is `watched`; inside `silenced` none is shown.
    """
    if show is None:
        show = large and watched()
    if not show or _silenced:
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
