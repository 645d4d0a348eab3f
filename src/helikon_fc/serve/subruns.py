"""The events of agent-as-tool sub-runs, read back from the store into their caller's stream.

An `AgentAsTool` call keeps its sub-run's events inside the tool: the caller's stream shows the call and its
result only. The sub-run is recorded in the store, though, under ``<caller's id>/tool:<call id>``, and is
over by the time its result arrives. So when the result of such a call comes, the server reads the sub-run's
events (its steps, streamed deltas and tool decisions; not its start and terminal events, as for any sub-run
on a stream) and puts them before the result, between an `AgentUpdated` naming the sub-run's agent and one
giving the turn back: its envelopes carry the sub-agent's path, nested under its caller's. A sub-run's own
agent-as-tool calls are read the same way, to `MAX_DEPTH`.
"""

from __future__ import annotations

from typing import Any

import trio

from ..agents.agent_as_tool import AgentAsTool
from ..core import AgentEvent, AgentUpdated, RunCompleted, RunFailed, RunPaused, RunStarted, ToolOutputItem
from ..core.records import Boundary, ModelAnswered, RecordLogError, RunOpened, RunRecordBody, ToolFinished
from ..shell.durable.run_log import decode_records
from ..shell.durable.storage import RunStore, StoreError

MAX_DEPTH = 4
"""How deep agent-as-tool sub-runs inside sub-runs are read."""

_TERMINAL = (RunStarted, RunCompleted, RunFailed, RunPaused)


def agent_tools(top: Any, children: Any) -> dict[str, str]:
    """The agent-as-tool tools anywhere in `top`'s tree (walked with `children`): tool name -> its agent's name."""
    found: dict[str, str] = {}
    seen: set[int] = set()
    queue = [top]
    while queue:
        agent = queue.pop()
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        for tool in getattr(agent, "tools", ()) or ():
            if isinstance(tool, AgentAsTool):
                found.setdefault(tool.name, tool.agent.name)
                queue.append(tool.agent)
        queue.extend(children(agent))
    return found


async def sub_run_events(store: RunStore, run_id: str, call_id: str, agent: str, caller: str) -> list[AgentEvent]:
    """The events of the sub-run of call `call_id` in run `run_id` (or one of its sub-runs), framed by
    announcements of `agent` and then `caller`; empty when no such sub-run is recorded (or it cannot be read)."""
    suffix = f"/tool:{call_id}"
    try:
        ids = [s.run_id for s in await store.runs() if s.run_id.startswith(run_id + "/") and s.run_id.endswith(suffix)]
        if len(ids) != 1:
            return []
        events = await _events(store, ids[0], MAX_DEPTH)
    except (StoreError, RecordLogError):
        await trio.lowlevel.checkpoint()  # a store may fail before it waits for anything
        return []
    return [AgentUpdated(agent), *events, AgentUpdated(caller)]


async def _events(store: RunStore, sub_id: str, depth: int) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    agent = "?"
    for body in decode_records(sub_id, await store.read_run_records(sub_id)):
        if isinstance(body, RunOpened):
            agent = body.agent
        for event in _own(body):
            if isinstance(event, _TERMINAL):
                continue
            if isinstance(event, ToolOutputItem) and depth > 1:
                nested = f"{sub_id}/tool:{event.item.call_id}"
                inner = await _nested(store, nested, depth - 1)
                if inner is not None:
                    inner_agent, inner_events = inner
                    events += [AgentUpdated(inner_agent), *inner_events, AgentUpdated(agent)]
            events.append(event)
    return events


def _own(body: RunRecordBody) -> tuple[AgentEvent, ...]:
    """The events a record holds: a step's, a model call's streamed deltas, a tool call's decisions."""
    match body:
        case Boundary(events=events) | ToolFinished(events=events):
            return events
        case ModelAnswered(deltas=deltas):
            return deltas
        case _:
            return ()


async def _nested(store: RunStore, sub_id: str, depth: int) -> tuple[str, list[AgentEvent]] | None:
    try:
        summary = await store.run_summary(sub_id)
    except StoreError:
        await trio.lowlevel.checkpoint()
        return None
    return summary.agent, await _events(store, sub_id, depth)
