"""`AgentInput`: what a run starts from, and `as_input`, which every public run entry point uses to take a
plain string as well."""

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


def as_input(owner: str, input: AgentInput | str) -> AgentInput:
    """`input` as an `AgentInput`: a string is one user message (`AgentInput.from_user_text`).

    The public run entry points (``agent.run``, ``Runner.run``) call it, so ``agent.run(ctx, "hi")``
    works as ``simulate(agent, "hi")`` does.

    Args:
        owner: who takes the input, for the message (``"LlmAgent.run"``).
        input: an `AgentInput` or a string.

    Raises:
        TypeError: `input` is neither.
    """
    if isinstance(input, AgentInput):
        return input
    if isinstance(input, str):
        return AgentInput.from_user_text(input)
    hint = "pass the user's text, or AgentInput.from_items(items)"
    raise TypeError(_checks.message(owner, "input", input, "an AgentInput or a str", hint))
