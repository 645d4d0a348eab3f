"""A recorded run's events, read back from its records, for ``helikon runs show`` to render as the live view.

A run's log holds the events of each step (`Boundary.events`), the deltas streamed during each model
call (`ModelAnswered.deltas`), each tool call's decisions (`ToolFinished.events`) and the terminal
event (`RunFinished`). Its sub-runs (a handoff's target, an agent-as-tool call, a workflow's children)
are runs of their own, recorded under ``<run id>/<segment>``; their events go where they ran:

- ``handoff:<agent>`` after the boundary that performs the handoff;
- any other segment (a workflow's step, branch or node) after the parent's opening, in the order the
  sub-runs were created, each whole (concurrent branches are shown one after the other);
- except ``tool:<call id>``: an agent-as-tool call's sub-run is not part of its parent's stream (the live
  view shows the call and its result), and ``runs show`` shows it under its own id.

A sub-run's own start and terminal events are left out, as a live run's stream leaves them out; an
`AgentUpdated` says whose events follow, and another gives the turn back to the parent.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core import AgentEvent, AgentUpdated, ApprovalRequested, RunCompleted, RunFailed, RunPaused, RunStarted, Usage
from ..core.records import (
    ActionKind,
    Boundary,
    ModelAnswered,
    RunFinished,
    RunOpened,
    RunRecordBody,
    ToolFinished,
    ToolsOffered,
)
from ..shell.durable.run_log import decode_records
from ..shell.durable.storage import RunStore, RunSummary

_TERMINAL = (RunCompleted, RunFailed, RunPaused)


async def stored_events(store: RunStore, run_id: str) -> list[AgentEvent]:
    """The events of run `run_id` and its sub-runs, in the order its live stream had them (see the module).

    A run with no terminal record (still running, or its process died) ends without a terminal event.

    Raises:
        RunNotFound: nothing is recorded under `run_id`.
        RecordLogError: its records are not a run log.
    """
    summaries = await store.runs()
    await store.run_summary(run_id)  # RunNotFound for an unknown id
    return await _events(store, run_id, summaries, nested=False)


async def _events(store: RunStore, run_id: str, summaries: Sequence[RunSummary], *, nested: bool) -> list[AgentEvent]:
    log = decode_records(run_id, await store.read_run_records(run_id))
    opened = next((body for body in log if isinstance(body, RunOpened)), None)
    agent = opened.agent if opened is not None else "?"
    events: list[AgentEvent] = [] if nested else [RunStarted(agent, run_id=run_id)]
    waiting = _children(run_id, summaries)
    terminal: AgentEvent | None = None

    async def children(wanted: list[str]) -> None:  # noqa: ASYNC910 - no children: nothing to read, a sync path
        for segment in wanted:
            waiting.remove(segment)
            child_id = f"{run_id}/{segment}"
            handoff = segment.startswith("handoff:")
            if not handoff:  # a handoff's own boundary announced its target; others are announced here
                events.append(AgentUpdated(next((s.agent for s in summaries if s.run_id == child_id), "?")))
            events.extend(await _events(store, child_id, summaries, nested=True))
            if not handoff:
                events.append(AgentUpdated(agent))

    for body in log:
        events.extend(event for event in _own_events(body) if not isinstance(event, _TERMINAL))
        terminal = _terminal_of(body)
        match body:
            case RunOpened():
                await children([s for s in waiting if not s.startswith(("handoff:", "tool:"))])
            case Boundary(action=ActionKind.PERFORM_HANDOFF):
                await children([s for s in waiting if s.startswith("handoff:")])
            case _:
                pass
    await children(list(waiting))  # a handoff whose boundary is not recorded (the log is cut short)
    if not nested and terminal is not None:
        events.append(terminal)
    return events


def _own_events(body: RunRecordBody) -> tuple[AgentEvent, ...]:
    match body:
        case Boundary(events=events):
            return events
        case ModelAnswered(deltas=deltas):
            return deltas
        case ToolFinished(events=events):
            return events
        case RunOpened() | ToolsOffered() | RunFinished():
            return ()


def _terminal_of(body: RunRecordBody) -> AgentEvent | None:
    """The terminal event `body` records: a finished run's, or the pause a boundary awaiting approval ends in
    while no decision has come (its store status is then ``paused``; a later record replaces it)."""
    match body:
        case RunFinished(terminal=terminal):
            return terminal
        case Boundary(action=ActionKind.AWAIT_APPROVAL, events=events, state=state):
            waiting = tuple(event for event in events if isinstance(event, ApprovalRequested))
            return RunPaused(waiting, getattr(state, "usage", Usage()))
        case Boundary(events=events):
            return next((event for event in reversed(events) if isinstance(event, _TERMINAL)), None)
        case _:
            return None


def _children(run_id: str, summaries: Sequence[RunSummary]) -> list[str]:
    """The segments of `run_id`'s direct sub-runs that are part of its stream, oldest first."""
    prefix = run_id + "/"
    direct = [
        s
        for s in summaries
        if s.run_id.startswith(prefix)
        and "/" not in s.run_id[len(prefix) :]
        and not s.run_id[len(prefix) :].startswith("tool:")
    ]
    return [s.run_id[len(prefix) :] for s in sorted(direct, key=lambda s: (s.created_at, s.run_id))]
