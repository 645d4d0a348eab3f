"""What every pattern machine reads and asks for: its inputs (how a child run ended), its actions
(run a child, write the run's state, stop children, finish) and one step's outcome.

A pattern machine has the shape of `transition`: ``advance(state, input) -> PatternOutcome``,
pure and total. A runtime (an interpreter) feeds `Begin` once and then one `ChildEnded` per
`RunChild` as each child run ends, until an outcome carries `Finish`. With each outcome it first
performs the `WriteState` actions (what ended is recorded), then sends the `events` to the
workflow's stream, then performs the other actions in order (`Finish` is always the last).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeAlias, TypeVar

import attrs

from ..errors import AgentError, InvalidTransition, OtherError
from ..events import AgentEvent, ApprovalRequested, RunCompleted, RunFailed, RunPaused
from ..items import Item
from ..usage import Usage


@attrs.frozen
class Begin:
    """Start the run: the first input of every machine, accepted once."""


@attrs.frozen
class ChildSucceeded:
    """A child run completed with its last answer text (its usage counts on the runtime's meter)."""

    text: str


@attrs.frozen
class ChildFailed:
    """A child run failed (or could not start) with `error`."""

    error: AgentError


@attrs.frozen
class ChildPaused:
    """A child run paused for approval: `pending` is what its waiting calls ask (the workflow pauses too)."""

    pending: tuple[ApprovalRequested, ...]


ChildOutcome: TypeAlias = ChildSucceeded | ChildFailed | ChildPaused
"""How one child run ended."""


@attrs.frozen
class ChildEnded:
    """The child started by the `RunChild` with this `index` ended with `outcome`.

    `escalated` is whether a tool of that child called ``actions.escalate()`` (only a loop reads it).
    """

    index: int
    outcome: ChildOutcome
    escalated: bool = False


@attrs.frozen
class HandoffSeen:
    """A running child handed off (a `HandoffItem` went by on its stream): a swarm counts these."""


PatternInput: TypeAlias = Begin | ChildEnded | HandoffSeen
"""What a pattern machine reads."""


@attrs.frozen
class RunChild:
    """Run the workflow's child number `index` (its `key`) on the workflow's input plus `context`.

    `segment` names this run below the workflow (its recording and its context path); the runtime
    feeds back `ChildEnded(index, ...)` when it ends. Several may run at once (parallel, graph).
    """

    index: int
    key: str
    segment: str
    context: tuple[Item, ...] = ()


@attrs.frozen
class WriteState:
    """Write `text` under `key` in the run's shared state (as a JSON string)."""

    key: str
    text: str


@attrs.frozen
class StopChildren:
    """Cancel every child still running (a swarm over its handoff budget)."""


COMPLETED = RunCompleted(Usage())
"""A machine's success: the runtime completes it with its meter's totals (every model call below counted as made)."""


@attrs.frozen
class Finish:
    """End the run with `terminal`; nothing follows. `COMPLETED` means success, with the meter's usage."""

    terminal: RunCompleted | RunFailed | RunPaused


PatternAction: TypeAlias = RunChild | WriteState | StopChildren | Finish
"""What a pattern machine asks its runtime to do."""

ChildRunner: TypeAlias = Callable[[RunChild], Awaitable[tuple[ChildOutcome, bool]]]
"""How a runtime performs a `RunChild`: runs that child to its end; its outcome, and whether it escalated."""


S = TypeVar("S", covariant=True)


@attrs.frozen
class PatternOutcome(Generic[S]):
    """One step: the machine's next `state`, the `events` to send and the `actions` to perform (see the module)."""

    state: S
    events: tuple[AgentEvent, ...] = ()
    actions: tuple[PatternAction, ...] = ()


def invalid(state: object, input: PatternInput, detail: str = "") -> tuple[PatternAction, ...]:
    """The actions for an input `state` cannot accept: finish with `InvalidTransition` (a runtime bug, as data)."""
    error = InvalidTransition(type(state).__name__, type(input).__name__, detail)
    return (Finish(RunFailed(error)),)


def empty_workflow(kind: str, name: str, what: str, how: str) -> RunFailed:
    """The end of a workflow run with no children: ``"SequentialAgent 'x' has no steps to run; ..."``."""
    return RunFailed(OtherError(f"{kind} {name!r} has no {what} to run; add at least one with {how} before running it"))
