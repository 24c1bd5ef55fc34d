"""A Jupyter server extension: the kernel's messages leave the server at once (TCP_NODELAY on its websocket).

jupyter_server leaves Nagle's algorithm on for the kernel websocket, so a message smaller
than a TCP segment that follows one the browser has not acknowledged yet waits for the
browser's delayed ACK: 40 ms on Linux. The widget's small replies (the one closing a
request for blocks, a hover, a trait echo) each came that much late; a 10-byte comm echo
took about 50 ms, and 15-25 ms with the flag (`benchmarks/bench_widget.py` prints both). Tornado's
documentation advises the flag for websockets that need low latency. The extension is
enabled on install (``jupyter-config/``); ``jupyter server extension disable ipu_nb``
turns it off.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["MARK", "without_delay"]

MARK = "_ipu_nb_nodelay"
"""Set on the wrapped ``open``, so loading the extension twice wraps it once."""

Open = Callable[..., Awaitable[Any]]


def without_delay(open_: Open) -> Open:
    """Wrap a websocket handler's ``open`` to set the no-delay flag on the connection first."""

    @functools.wraps(open_)
    async def open(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.set_nodelay(True)
        return await open_(self, *args, **kwargs)

    setattr(open, MARK, True)
    return open


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Make every kernel websocket the server opens from now on send without delay.

    A jupyter_server without the handler this wraps (another major version) is left as it
    is, with one warning: the widget works the same, later.
    """
    try:
        from jupyter_server.services.kernels.websocket import KernelWebsocketHandler

        open_ = KernelWebsocketHandler.open
    except (ImportError, AttributeError) as error:
        serverapp.log.warning("ipu-nb: kernel websockets keep their delay (%s)", error)
        return
    if not getattr(open_, MARK, False):
        setattr(KernelWebsocketHandler, "open", without_delay(open_))  # noqa: B010
    serverapp.log.info("ipu-nb: kernel websockets send small messages at once (TCP_NODELAY)")
