"""The machine of `SwarmAgent`: the entry member's run, its handoffs counted against a budget.

`Begin` runs the entry member (its own loop hands off among the members, nesting). Each handoff the
runtime sees (`HandoffSeen`) takes one from the budget; the first beyond it stops the run: the
runtime stops the member (`StopChildren`: its target never runs) and, once the member's run has
ended, the swarm fails with `MaxHandoffsExceeded(limit)` whatever that run ended with. Otherwise the
member's end is the swarm's: first to answer wins.
"""

from __future__ import annotations

import attrs

from ..errors import MaxHandoffsExceeded
from ..events import RunCompleted, RunFailed, RunPaused
from .vocabulary import (
    COMPLETED,
    Begin,
    ChildEnded,
    ChildFailed,
    ChildPaused,
    ChildSucceeded,
    Finish,
    HandoffSeen,
    PatternAction,
    PatternInput,
    PatternOutcome,
    RunChild,
    StopChildren,
    invalid,
)


@attrs.frozen
class SwarmState:
    """Where a swarm run stands.

    Attributes:
        name: the swarm's name.
        entry: the member that takes the first turn.
        limit: the handoff budget, or `None` for none.
        handoffs: how many handoffs were seen.
        running: the entry member's run is under way.
        stopping: a handoff beyond the budget was seen; the run fails once the member's run ends.
        finished: the run has finished (every input is now invalid).
    """

    name: str
    entry: str
    limit: int | None = None
    handoffs: int = 0
    running: bool = False
    stopping: bool = False
    finished: bool = False


def swarm(name: str, entry: str, limit: int | None) -> SwarmState:
    """The state before a `SwarmAgent` run called `name`, entering with member `entry`, with budget `limit`."""
    return SwarmState(name, entry, limit)


def advance_swarm(state: SwarmState, input: PatternInput) -> PatternOutcome[SwarmState]:
    """One step of a swarm run."""
    if state.finished:
        return _finish(state, invalid(state, input, "the run has finished"))
    match input:
        case Begin() if not state.running:
            return PatternOutcome(attrs.evolve(state, running=True), (), (RunChild(0, state.entry, "entry"),))
        case HandoffSeen() if state.running and not state.stopping:
            handoffs = state.handoffs + 1
            if state.limit is not None and handoffs > state.limit:
                return PatternOutcome(attrs.evolve(state, handoffs=handoffs, stopping=True), (), (StopChildren(),))
            return PatternOutcome(attrs.evolve(state, handoffs=handoffs))
        case HandoffSeen() if state.stopping:
            return PatternOutcome(state)  # the stopped member's last events: already over budget
        case ChildEnded(index=0) if state.running:
            return _finish(state, (Finish(_end(state, input)),))
        case _:
            return _finish(state, invalid(state, input))


def _end(state: SwarmState, ended: ChildEnded) -> RunCompleted | RunFailed | RunPaused:
    if state.stopping and state.limit is not None:
        return RunFailed(MaxHandoffsExceeded(state.limit))
    match ended.outcome:
        case ChildSucceeded():
            return COMPLETED
        case ChildFailed(error=error):
            return RunFailed(error)
        case ChildPaused(pending=pending):
            return RunPaused(pending)


def _finish(state: SwarmState, actions: tuple[PatternAction, ...]) -> PatternOutcome[SwarmState]:
    return PatternOutcome(attrs.evolve(state, finished=True), (), actions)
