"""The kernel does not flash "busy" for the widgets' own comm messages.

ipykernel publishes ``busy`` and then ``idle`` around every message the front end sends, a
widget's comm messages included, and JupyterLab redraws its kernel indicators (toolbar,
status bar, the notebook's execution indicator) at each change: 4-7 ms of the page's main
thread per message on a shared two-core machine, while pans and zooms send several a
second. For the comm messages of the widgets registered here the ``busy`` is left out. The
``idle`` still goes (JupyterLab closes its record of the message on it) and changes nothing
on a page that already shows the kernel idle. Cells, and every other comm, are untouched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["is_quiet", "quiet", "unquiet"]

_ids: set[str] = set()
_lock = threading.Lock()
_MARK = "_ipu_nb_quiet_status"


def is_quiet(message: Mapping[str, Any] | None) -> bool:
    """Whether `message` (a deserialised shell message) is a comm message to a registered widget."""
    if not message:
        return False
    header = message.get("header") or {}
    content = message.get("content") or {}
    return header.get("msg_type") == "comm_msg" and isinstance(content, Mapping) and content.get("comm_id") in _ids


def quiet(comm_id: str, kernel: Any = None) -> bool:
    """Leave out the ``busy`` status of comm `comm_id`'s messages; False when `kernel` (default:
    the running IPython kernel) cannot be told, which leaves it as it was."""
    if kernel is None:
        kernel = _running_kernel()
    if kernel is None or not _install(kernel):
        return False
    with _lock:
        _ids.add(comm_id)
    return True


def unquiet(comm_id: str) -> None:
    """Comm `comm_id` is closed: forget it."""
    with _lock:
        _ids.discard(comm_id)


def _running_kernel() -> Any:
    try:
        from ipykernel.kernelbase import Kernel
    except ImportError:  # pragma: no cover - anywidget hosts without ipykernel
        return None
    return Kernel.instance() if Kernel.initialized() else None


def _install(kernel: Any) -> bool:
    """Wrap `kernel`'s status publisher once; False when it lacks the methods wrapped (another ipykernel)."""
    publish: Callable[..., Any] | None = getattr(kernel, "_publish_status", None)
    parent_of: Callable[[str], Any] | None = getattr(kernel, "get_parent", None)
    if publish is None or parent_of is None:
        return False
    if getattr(publish, _MARK, False):
        return True

    def publish_status(status: str, channel: str, parent: Any = None, *rest: Any, **named: Any) -> Any:
        if status == "busy" and channel == "shell" and is_quiet(parent if parent is not None else parent_of(channel)):
            return None
        return publish(status, channel, parent, *rest, **named)

    setattr(publish_status, _MARK, True)
    kernel._publish_status = publish_status
    return True
