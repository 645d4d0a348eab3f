"""`ActionsHandle`: the signals a tool can raise for the orchestrator around its agent (``ctx.actions``)."""

from __future__ import annotations


class ActionsHandle:
    """Signals a tool can raise for the orchestrator around its agent; `escalate()` ends a `LoopAgent`."""

    __slots__ = ("_escalated",)

    def __init__(self) -> None:
        self._escalated = False

    def escalate(self) -> None:
        """Ask the enclosing loop to stop after the current sub-agent finishes."""
        self._escalated = True

    @property
    def escalated(self) -> bool:
        """Whether `escalate()` was called since the last `reset()`."""
        return self._escalated

    def reset(self) -> None:
        """Clear the escalate flag."""
        self._escalated = False
