"""The Jupyter server extension: kernel websockets get TCP_NODELAY when they open, and installing enables it."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

import ipu_nb
from ipu_nb import _server_extension

websocket = pytest.importorskip("jupyter_server.services.kernels.websocket")

ROOT = Path(__file__).resolve().parent.parent
CONFIG = "jupyter_server_config.d"  # beside a Jupyter config dir: the JSON file enabling the extension
FILE = "ipu-nb.json"


class Handler:
    """A websocket handler's surface the wrapper touches: what was called, in order."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def set_nodelay(self, value: bool) -> None:
        self.calls.append(("nodelay", value))


def test_open_sets_no_delay_before_the_connection_starts():
    async def open_(self: Handler, kernel_id: str) -> str:
        self.calls.append(("open", kernel_id))
        return "opened"

    handler = Handler()
    wrapped = _server_extension.without_delay(open_)

    async def open_through_the_wrapper() -> object:  # asyncio.run takes a coroutine, `Open` promises an awaitable
        return await wrapped(handler, "k1")

    assert asyncio.run(open_through_the_wrapper()) == "opened"
    assert handler.calls == [("nodelay", True), ("open", "k1")]
    assert wrapped.__name__ == "open_" and getattr(wrapped, _server_extension.MARK)


def test_loading_wraps_the_kernel_websocket_once(monkeypatch):
    handler_class = websocket.KernelWebsocketHandler
    original = handler_class.open
    monkeypatch.setattr(handler_class, "open", original)  # restored after the test

    class App:
        log = logging.getLogger("test")

    _server_extension._load_jupyter_server_extension(App())
    wrapped = handler_class.open
    assert wrapped is not original and getattr(wrapped, _server_extension.MARK)
    assert wrapped.__wrapped__ is original
    _server_extension._load_jupyter_server_extension(App())
    assert handler_class.open is wrapped


def test_a_server_without_the_handler_is_left_as_it_is(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "jupyter_server.services.kernels.websocket", None)  # import fails

    class App:
        log = logging.getLogger("test")

    with caplog.at_level(logging.WARNING, logger="test"):
        _server_extension._load_jupyter_server_extension(App())
    assert "kernel websockets keep their delay" in caplog.text
    assert not getattr(websocket.KernelWebsocketHandler.open, _server_extension.MARK, False)


def test_the_package_names_the_extension_and_installing_enables_it():
    from jupyter_server.extension.manager import ExtensionPackage

    package = ExtensionPackage(name="ipu_nb", enabled=True)
    assert [point.module for point in package.extension_points.values()] == [_server_extension]
    assert ipu_nb._jupyter_server_extension_points() == [{"module": "ipu_nb._server_extension"}]
    shipped = json.loads((ROOT / "jupyter-config" / CONFIG / FILE).read_text())
    assert shipped == {"ServerApp": {"jpserver_extensions": {"ipu_nb": True}}}
    installed = Path(sys.prefix, "etc", "jupyter", CONFIG, FILE)
    if not installed.is_file():
        pytest.skip(f"ipu-nb is not installed into {sys.prefix}")
    assert json.loads(installed.read_text()) == shipped
