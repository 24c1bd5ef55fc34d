"""`Sent`: what a `ProfileWidget` under test sends its front end, messages and traits sent back."""

from __future__ import annotations

from typing import Any

from ipu_nb._widget.widget import ProfileWidget

__all__ = ["Sent"]


class Sent:
    """The messages the widget sends (``send``) and the trait names it sends back (``send_state``)."""

    def __init__(self, widget: ProfileWidget) -> None:
        self.messages: list[dict[str, Any]] = []
        self.states: list[Any] = []
        widget.send = lambda content, buffers=None: self.messages.append(content)
        widget.send_state = lambda key=None: self.states.append(key)

    def types(self) -> list[str]:
        return [m["type"] for m in self.messages]

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "error"]
