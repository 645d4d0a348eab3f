"""The tool calls of agents called as tools: their sub-runs' events are not in the parent's stream, so a
run's trajectory takes them from its recorded logs, each after the call that started its sub-run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import trio

from ..core import AgentEvent, ToolCallItem
from ..core.records import RecordLogError
from ..shell.durable.storage import RunNotFound, RunStore
from ..testing import RecordedRun, Recording
from ._observed import ObservedCall, decoded

SubRuns = Mapping[str, RecordedRun]


async def with_sub_run_calls(
    events: Sequence[AgentEvent], calls: tuple[ObservedCall, ...], store: RunStore, run_id: str
) -> tuple[ObservedCall, ...]:
    """`calls` (the stream's, in order) with the calls of each agent-as-tool sub-run spliced in after the call
    that started it (recursively); `calls` unchanged when the run's logs cannot be read."""
    await trio.lowlevel.checkpoint()  # a checkpoint whether the logs can be read or not
    try:
        recording = await Recording.load(store, run_id)
    except (RunNotFound, RecordLogError):
        return calls
    except Exception:  # a log this reading does not foresee: the stream's calls, never a crashed eval
        return calls
    runs = {run.run_id: run for run in recording.runs}
    call_ids = [event.item.call_id for event in events if isinstance(event, ToolCallItem)]
    visited: set[str] = set()
    spliced: list[ObservedCall] = []
    for made, call_id in zip(calls, call_ids, strict=True):
        spliced.append(made)
        sub = _tool_run(runs, call_id, made.agent, visited)
        if sub is not None:
            spliced.extend(_calls_of(sub, runs, visited))
    return tuple(spliced)


def _tool_run(runs: SubRuns, call_id: str, caller: str, visited: set[str]) -> RecordedRun | None:
    """The unvisited sub-run a call `call_id` of agent `caller` started as a tool, if any."""
    suffix = f"/tool:{call_id}"
    for run_id, run in runs.items():
        parent = run_id[: -len(suffix)]
        if run_id.endswith(suffix) and run_id not in visited and parent in runs and runs[parent].agent == caller:
            visited.add(run_id)
            return run
    return None


def _calls_of(run: RecordedRun, runs: SubRuns, visited: set[str]) -> list[ObservedCall]:
    """Every call of `run` in order, each followed by its tool sub-run's; then its other children's (handoffs)."""
    calls: list[ObservedCall] = []
    for made in run.calls:
        for call in made.response.tool_calls:
            calls.append(ObservedCall(agent=run.agent, name=call.name, arguments=decoded(call.arguments)))
            child = runs.get(f"{run.run_id}/tool:{call.call_id}")
            if child is not None and child.run_id not in visited:
                visited.add(child.run_id)
                calls.extend(_calls_of(child, runs, visited))
    prefix = run.run_id + "/"
    for run_id, child in runs.items():
        if run_id.startswith(prefix) and "/" not in run_id[len(prefix) :] and run_id not in visited:
            visited.add(run_id)
            calls.extend(_calls_of(child, runs, visited))
    return calls
