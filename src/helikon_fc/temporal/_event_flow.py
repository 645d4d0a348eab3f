"""How events travel between the agents of a `RunWorkflow`: a child's and a handoff target's events forwarded
by the merge convention, concurrent children's events kept attributable, a child workflow followed."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    import attrs

    from ..core import AgentEvent, AgentUpdated, RunStarted, TerminalEvent, from_json
    from ..core.patterns import ChildOutcome
    from ..core.patterns.subrun import SubRun, child_end, handoff_end, relay, relay_of
    from ._payloads import ChildBatch
    from ._scope import Emit


class ChildForward:
    """Forwards a child's events as its relay says (`core.patterns.subrun`: the merge convention, its
    questions qualified by its `segment`) and keeps its last answer and terminal."""

    __slots__ = ("_emit", "agent", "state")

    def __init__(self, emit: Emit, who: str, segment: str, kind: SubRun = SubRun.CHILD) -> None:
        self._emit = emit
        self.state = relay_of(kind, who, segment)
        self.agent = who  # the child's name, once its `RunStarted` said it

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, RunStarted):
            self.agent = event.agent
        self.state, passed = relay(self.state, event)
        for each in passed:
            self._emit(each)

    @property
    def terminal(self) -> TerminalEvent | None:
        """The child's terminal event, once it came."""
        return self.state.terminal

    def ended(self, terminal: TerminalEvent) -> None:
        """The child ended with `terminal` though its stream did not say so (its workflow failed to run)."""
        self.state = attrs.evolve(self.state, terminal=terminal)

    def outcome(self) -> ChildOutcome:
        """How the child ended, for a pattern machine (one that gave no terminal failed)."""
        return child_end(self.state)

    def end(self) -> TerminalEvent:
        """How a run that handed off to the child ends (its target's terminal, or a failure)."""
        return handoff_end(self.state)


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
