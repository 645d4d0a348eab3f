"""`AgentInput`: what a run starts from."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ..core import Item, UserMessage
from . import _checks


@attrs.frozen
class AgentInput:
    """The items a run starts with, appended after any history the run context brings."""

    items: tuple[Item, ...]

    @classmethod
    def from_user_text(cls, text: str) -> AgentInput:
        """One user message.

        Raises:
            TypeError: `text` is not a string.
        """
        _checks.require_type("AgentInput.from_user_text", "text", text, str, "a string")
        return cls((UserMessage(text),))

    @classmethod
    def from_items(cls, items: Iterable[Item]) -> AgentInput:
        """Any items, in order (for example a transcript to continue)."""
        return cls(tuple(items))
