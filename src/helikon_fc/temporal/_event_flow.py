"""How events travel between the agents of a `RunWorkflow`: a child's and a handoff target's events forwarded
by the merge convention, concurrent children's events kept attributable, a child workflow followed."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from ..core import (
        AgentEvent,
        AgentUpdated,
        MessageOutput,
        RunCompleted,
        RunFailed,
        RunStarted,
        TerminalEvent,
        from_json,
    )
    from ._payloads import ChildBatch
    from ._scope import Emit


class ChildForward:
    """Forwards a child's events by the merge convention and keeps its last answer and terminal."""

    __slots__ = ("_emit", "terminal", "text")

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self.text = ""
        self.terminal: TerminalEvent | None = None

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, RunStarted):
            event = AgentUpdated(event.agent)
        elif isinstance(event, RunCompleted | RunFailed):
            self.terminal = event
            return
        elif isinstance(event, MessageOutput):
            self.text = event.item.text
        self._emit(event)


class HandoffForward:
    """Forwards a handoff target's events: its `RunStarted` dropped, its terminal kept (the meter counts its usage)."""

    __slots__ = ("_emit", "terminal")

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self.terminal: TerminalEvent | None = None

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, RunStarted):
            return
        if isinstance(event, RunCompleted | RunFailed):
            self.terminal = event
        elif self.terminal is None:
            self._emit(event)


class Interleaving:
    """Keeps concurrent children's events attributable: re-announces the agent whenever it changes.

    The workflow's own events (`emit`) are announced as its `owner`'s, so its merged message never
    follows the announcement of one of its children (as `helikon_fc.agents.Interleaving`).
    """

    __slots__ = ("_announced", "_emit", "_owner")

    def __init__(self, emit: Emit, owner: str) -> None:
        self._emit = emit
        self._owner = owner
        self._announced: str | None = owner  # the workflow's RunStarted announced it

    def emitter(self) -> Emit:
        active: list[str | None] = [None]

        def send(event: AgentEvent) -> None:
            if isinstance(event, AgentUpdated):
                active[0] = event.agent
                return
            if active[0] is not None and active[0] != self._announced:
                self._announced = active[0]
                self._emit(AgentUpdated(active[0]))
            self._emit(event)

        return send

    def emit(self, event: AgentEvent) -> None:
        if self._announced != self._owner:
            self._announced = self._owner
            self._emit(AgentUpdated(self._owner))
        self._emit(event)


class Follower:
    """What a parent knows of a child workflow while it runs: the events it forwarded, the usage so far,
    and what its waiting calls ask (under its `scope`, the prefix of their ids).

    A child whose events the parent does not show (an agent-as-tool sub-run) has its new questions
    announced in the parent's stream instead (`announce`), so a client following the run sees them.
    """

    __slots__ = ("_announce", "_forward", "pending", "scope", "seen", "usage_json")

    def __init__(self, forward: Emit | None, scope: str, announce: Emit) -> None:
        self._forward = forward
        self._announce = announce
        self.scope = scope
        self.seen = 0
        self.usage_json = "[]"
        self.pending: list[str] = []

    def take(self, batch: ChildBatch) -> bool:
        """Forward what of `batch` is new; keep its usage and questions (the child's latest); whether those changed."""
        self.usage_json = batch.usage_json
        changed = batch.pending != self.pending
        if changed and self._forward is None:
            for text in batch.pending:
                if text not in self.pending:
                    self._announce(from_json(AgentEvent, text))
        self.pending = list(batch.pending)
        if self._forward is not None and batch.start <= self.seen:
            self.rest(batch.events[self.seen - batch.start :])
        return changed

    def rest(self, events: list[str]) -> None:
        """Forward `events`, the next ones after those seen."""
        for text in events:
            self.seen += 1
            if self._forward is not None:
                self._forward(from_json(AgentEvent, text))
