"""A recording rebuilt from a run's events (what ``helikon run --json`` prints), and the model that replays it.

Events keep less than a run log: no request of any model call, no call's usage, no latency, no sub-run of
an agent called as a tool. What they keep is enough to replay the run: each model call's answer is the
deltas it streamed between its `TurnStarted` (or `RepairStarted`) and the next one, made by the agent
`RunStarted` / `AgentUpdated` named; and `RunCompleted.usage_by_agent` gives each agent's usage, which the
replay reports on that agent's first call (its tokens, and one unreported request per call that had one),
so the replayed run adds up to the same `RunCompleted`. An agent called as a tool (named by a tool call,
with usage but no turn in the stream) is answered with one reply of the tool's recorded output, carrying
its usage (it counts one request however many it made). Without recorded requests, the replay answers in
order and detects a divergence by order only (`EventReplayModel`).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..core import (
    AgentEvent,
    AgentUpdated,
    FinishReason,
    Item,
    ModelEvent,
    ModelFinish,
    ModelRequest,
    ModelUsage,
    ReasoningDelta,
    RepairStarted,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    TokenDelta,
    ToolCall,
    ToolCallDelta,
    ToolOutputItem,
    TurnStarted,
    Usage,
    assemble_response,
)
from ..core.records import RunFinished, RunOpened, RunRecordBody
from ._recorded import RecordedCall, RecordedRun
from ._replay_model import RecordingDiverged, ReplayModel, model_event

_DELTAS = (TokenDelta, ReasoningDelta, ToolCallDelta)
_TERMINALS = (RunCompleted, RunFailed, RunPaused)


def run_from_events(run_id: str, events: Sequence[AgentEvent], input: tuple[Item, ...]) -> RecordedRun:
    """The recorded run `events` show, started on `input`: one `RecordedCall` per model call, in order.

    Raises:
        ValueError: `events` do not start with `RunStarted`.
    """
    if not events or not isinstance(events[0], RunStarted):
        first = type(events[0]).__name__ if events else "nothing"
        raise ValueError(f"the events of a run start with run_started, got {first}")
    agent = events[0].agent
    turns: list[tuple[str, list[AgentEvent]]] = []
    outputs: dict[str, str] = {}
    for event in events[1:]:
        if isinstance(event, AgentUpdated):
            agent = event.agent
        elif isinstance(event, TurnStarted | RepairStarted):
            turns.append((agent, []))
        elif isinstance(event, _DELTAS) and turns:
            turns[-1][1].append(event)
        elif isinstance(event, ToolOutputItem):
            outputs[event.item.call_id] = event.item.output
    terminal = events[-1] if isinstance(events[-1], _TERMINALS) else None
    calls = _with_tool_agents(run_id, _calls(run_id, turns, terminal), outputs, terminal)
    records: list[RunRecordBody] = [RunOpened(agent=events[0].agent, pattern="llm", fingerprint="", input=input)]
    if terminal is not None:
        records.append(RunFinished(terminal=terminal))
    return RecordedRun(run_id=run_id, agent=events[0].agent, records=tuple(records), calls=calls)


def _calls(
    run_id: str, turns: Sequence[tuple[str, Sequence[AgentEvent]]], terminal: AgentEvent | None
) -> tuple[RecordedCall, ...]:
    usage = _usage_by_agent(terminal)
    seen: dict[str, int] = {}
    calls: list[RecordedCall] = []
    for agent, deltas in turns:
        turn = seen.get(agent, 0)
        seen[agent] = turn + 1
        if isinstance(terminal, RunFailed) and not deltas and (agent, deltas) is turns[-1]:
            break  # the call the run failed on: it answered nothing
        own = usage.get(agent, Usage())
        reported = Usage(
            input_tokens=own.input_tokens if turn == 0 else 0,
            output_tokens=own.output_tokens if turn == 0 else 0,
            cached_input_tokens=own.cached_input_tokens if turn == 0 else 0,
            reasoning_tokens=own.reasoning_tokens if turn == 0 else 0,
            unreported_requests=1 if turn < own.unreported_requests else 0,
        )
        calls.append(_call(run_id, agent, turn, deltas, reported))
    return tuple(calls)


def _with_tool_agents(
    run_id: str, calls: tuple[RecordedCall, ...], outputs: dict[str, str], terminal: AgentEvent | None
) -> tuple[RecordedCall, ...]:
    """`calls` with, after each call of a tool named as an agent that used a model but never ran in the
    stream (an agent called as a tool: its sub-run's events are not in the parent's), that agent's answer:
    one reply of the tool's recorded output, reporting the agent's usage (see `sub_run_of`)."""
    usage = _usage_by_agent(terminal)
    hidden = set(usage) - {call.agent for call in calls}
    answered: set[str] = set()
    result: list[RecordedCall] = []
    for call in calls:
        result.append(call)
        for tool in call.response.tool_calls:
            if tool.name not in hidden or tool.call_id not in outputs:
                continue
            own = usage[tool.name] if tool.name not in answered else Usage()
            answered.add(tool.name)
            reported = attrs.evolve(own, requests=0, unreported_requests=min(own.unreported_requests, 1))
            delta = TokenDelta(outputs[tool.call_id])
            result.append(_call(f"{run_id}/tool:{tool.call_id}", tool.name, 0, (delta,), reported))
    return tuple(result)


def sub_run_of(call: RecordedCall) -> str | None:
    """The id of the tool call whose sub-run `call` answers, for the calls `_with_tool_agents` adds."""
    _, marker, call_id = call.run_id.rpartition("/tool:")
    return call_id if marker else None


def _usage_by_agent(terminal: AgentEvent | None) -> dict[str, Usage]:
    if not isinstance(terminal, RunCompleted):
        return {}
    totals: dict[str, Usage] = {}
    for share in terminal.usage_by_agent:
        totals[share.agent] = totals.get(share.agent, Usage()) + share.usage
    return totals


def _call(run_id: str, agent: str, turn: int, deltas: Sequence[AgentEvent], usage: Usage) -> RecordedCall:
    streamed: list[ModelEvent] = [event for event in map(model_event, deltas) if event is not None]
    has_tools = any(isinstance(delta, ToolCallDelta) for delta in deltas)
    if usage != Usage():
        streamed.append(ModelUsage(usage))
    streamed.append(ModelFinish(FinishReason.TOOL_CALLS if has_tools else FinishReason.STOP))
    return RecordedCall(
        run_id=run_id, agent=agent, turn=turn, request=None, response=assemble_response(streamed), deltas=tuple(deltas)
    )


class EventReplayModel(ReplayModel):
    """A `ReplayModel` for a recording read from events: its calls have no request, so it answers the requests
    in the order the calls were made, and a request diverges when the answer next in line calls a tool the
    request does not offer, or when every recorded call was answered already (`RecordingDiverged` naming the
    agent and turn, with no diff). The answer of an agent called as a tool (`sub_run_of`) goes to a request
    that does not show the tool call (the sub-run's), and is passed over once the caller's conversation
    shows it (the tool ran without a model call)."""

    __slots__ = ()

    def _answer(self, request: ModelRequest) -> int:
        progress = self._current()
        offered = {tool.name for tool in request.tools}
        for index, call in enumerate(self.calls):
            if progress.answered[index]:
                continue
            parent = sub_run_of(call)
            if parent is not None:
                if any(isinstance(item, ToolCall) and item.call_id == parent for item in request.items):
                    continue  # the caller goes on: the tool made no model call (it is no agent any more)
                progress.answered[index] = True
                return index
            missing = [tool.name for tool in call.response.tool_calls if tool.name not in offered]
            if missing:
                shown = ", ".join(repr(name) for name in missing)
                raise self._diverged(
                    call, request, f"its recorded answer calls {shown}, which the request does not offer"
                )
            progress.answered[index] = True
            return index
        last = self.calls[-1] if self.calls else None
        ends = f" (it ends with turn {last.turn} of agent {last.agent!r})" if last is not None else ""
        reason = f"the recording has no such model call: its {len(self.calls)} were all answered{ends}"
        raise self._diverged(last, request, reason, later=1)

    def _diverged(
        self, call: RecordedCall | None, request: ModelRequest, reason: str, *, later: int = 0
    ) -> RecordingDiverged:
        progress = self._current()
        diverged = RecordingDiverged(
            agent=call.agent if call is not None else None,
            run_id=call.run_id if call is not None else None,
            turn=call.turn + later if call is not None else None,
            recorded=None,
            requested=request,
            diff="",
            answered=sum(progress.answered),
            reason=reason,
        )
        if progress.diverged is None:
            progress.diverged = diverged
        return diverged
