"""The kernel's busy status is left out for registered widgets' comm messages, and only for those."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from ipykernel.kernelbase import Kernel

from ipu_nb._widget import quiet_status


class FakeKernel:
    """ipykernel's two methods the wrap relies on, recording what is published."""

    def __init__(self) -> None:
        self.parent: dict[str, Any] = {}
        self.published: list[tuple[str, str]] = []

    def _publish_status(self, status: str, channel: str, parent: Any = None) -> None:
        self.published.append((status, channel))

    def get_parent(self, channel: str = "shell") -> dict[str, Any]:
        return self.parent

    def handle(self, msg_type: str, content: dict[str, Any]) -> list[str]:
        """What ipykernel's dispatch_shell publishes around one shell message."""
        self.published.clear()
        self.parent = {"header": {"msg_type": msg_type}, "content": content}
        self._publish_status("busy", "shell")
        self._publish_status("idle", "shell")
        return [status for status, _ in self.published]


@pytest.fixture
def kernel() -> Iterator[FakeKernel]:
    yield FakeKernel()
    quiet_status.unquiet("ours")


def test_registered_comm_messages_publish_idle_only(kernel: FakeKernel) -> None:
    assert kernel.handle("comm_msg", {"comm_id": "ours"}) == ["busy", "idle"]
    assert quiet_status.quiet("ours", kernel)
    assert kernel.handle("comm_msg", {"comm_id": "ours", "data": {}}) == ["idle"]
    assert kernel.handle("comm_msg", {"comm_id": "another widget"}) == ["busy", "idle"]
    assert kernel.handle("execute_request", {"code": "1"}) == ["busy", "idle"]
    assert kernel.handle("comm_open", {"comm_id": "ours"}) == ["busy", "idle"]
    kernel.published.clear()
    kernel._publish_status("busy", "control")  # the control channel is never quietened
    kernel._publish_status("busy", "shell", parent={"header": {"msg_type": "execute_request"}, "content": {}})
    assert kernel.published == [("busy", "control"), ("busy", "shell")]


def test_a_closed_comm_is_forgotten(kernel: FakeKernel) -> None:
    quiet_status.quiet("ours", kernel)
    quiet_status.unquiet("ours")
    assert kernel.handle("comm_msg", {"comm_id": "ours"}) == ["busy", "idle"]


def test_the_kernel_is_wrapped_once(kernel: FakeKernel) -> None:
    quiet_status.quiet("ours", kernel)
    wrapped = kernel._publish_status
    quiet_status.quiet("other", kernel)
    assert kernel._publish_status is wrapped
    quiet_status.unquiet("other")


def test_a_kernel_without_the_methods_is_left_alone() -> None:
    class Bare:
        pass

    bare = Bare()
    assert not quiet_status.quiet("ours", bare)
    assert vars(bare) == {}
    assert not quiet_status.is_quiet(None)
    assert not quiet_status.is_quiet({"header": {"msg_type": "comm_msg"}, "content": "not a dict"})


def test_outside_a_kernel_nothing_is_installed() -> None:
    assert not Kernel.initialized()
    assert not quiet_status.quiet("ours")
    assert not quiet_status.is_quiet({"header": {"msg_type": "comm_msg"}, "content": {"comm_id": "ours"}})


def test_ipykernel_still_has_what_is_wrapped() -> None:
    """The wrap calls `_publish_status(status, channel, parent)` and `get_parent(channel)`: ipykernel's own."""
    publish = inspect.signature(Kernel._publish_status).parameters
    assert list(publish)[:4] == ["self", "status", "channel", "parent"]
    assert list(inspect.signature(Kernel.get_parent).parameters)[:2] == ["self", "channel"]
    source = inspect.getsource(Kernel.dispatch_shell)
    assert 'self._publish_status("busy", "shell")' in source
    assert "self.set_parent(idents, msg" in source  # the parent is the message when busy goes out
