"""`record` an agent's run into a `Recording`, and `replay` a recording offline in virtual time."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from ..shell import _checks
from ..shell.context.config import RunConfig
from ..shell.context.run_context import RunContext
from ..shell.durable.storage import RunStore, require_run_store
from ..shell.input import AgentInput, as_input
from ..shell.loop.protocol import Agent
from ..shell.loop.results import RunError, RunResultStreaming
from ..shell.loop.runner import Runner
from ..shell.tools.function_tool import sync_tools_inline
from .recording import Recording
from .simulation import Simulation, deterministic_scheduling


def _runner(agent: Agent[Any], config: RunConfig | None, store: RunStore | None) -> Runner:
    """The runner of a recorded or replayed run: `config`, else the agent's own, else the defaults."""
    own = getattr(agent, "run_config", None)
    return Runner(config or (own if isinstance(own, RunConfig) else RunConfig()), store=store)


async def record(
    agent: Agent[Any],
    input: str | AgentInput,
    *,
    store: RunStore,
    ctx: RunContext[Any] | None = None,
    config: RunConfig | None = None,
    run_id: str = "recorded",
) -> Recording:
    """Run `agent` on `input`, recorded in `store` under `run_id`, and return its `Recording` (events included).

    The run goes through ``Runner(config, store=store)`` (`config` defaults to the agent's own, else
    ``RunConfig()``); a run that fails is recorded as well (its `RunFailed` is its last event).

    Raises:
        TypeError: an argument is of the wrong kind.
        RunRecordConflict: a run is recorded under `run_id` in `store` already.
    """
    _checks.require_agent("record", "agent", agent)
    require_run_store("record", "store", store)
    agent_input = as_input("record", input)
    run_ctx: RunContext[Any] = RunContext.ephemeral(None) if ctx is None else ctx
    stream = _runner(agent, config, store).run(agent, run_ctx, agent_input, run_id=run_id)
    try:
        events = (await RunResultStreaming(stream).collect()).events
    except RunError as failure:
        events = failure.events
    return await Recording.load(store, run_id, events=events)


def replay(
    agent: Agent[Any],
    recording: Recording,
    *,
    store: RunStore | None = None,
    ctx: RunContext[Any] | None = None,
    config: RunConfig | None = None,
) -> Simulation:
    """Run `agent` on the recorded input in a fresh ``trio.run`` under ``MockClock``; return what happened.

    Build `agent` on ``recording.model()`` (every agent of it that the recorded run used a model for):
    it answers each request with its recorded answer after its recorded latency, so an unchanged agent
    gives back the recorded run — the same events, usage and output — offline and in virtual time, and
    a changed one fails with `RecordingDiverged` saying where (`Simulation.error` is its `ModelFailed`).

    Args:
        agent: the agent to replay.
        recording: the recording to replay.
        store: record the replay in this store under the recorded run id, as the recorded run was (its
            `RunStarted` then carries that id, as the recorded one does); `None`: not recorded, and
            `RunStarted.run_id` is `None`.
        ctx: the run context; a fresh ``RunContext.ephemeral(None)`` when `None`.
        config: the run config; by default the agent's own, else ``RunConfig()`` (as `record` ran it).

    Raises:
        TypeError: an argument is of the wrong kind.
        RuntimeError: called from inside a trio run.
    """
    _checks.require_agent("replay", "agent", agent)
    _checks.require_type("replay", "recording", recording, Recording, "a Recording (Recording.load or .read)")
    if store is not None:
        require_run_store("replay", "store", store)
    if trio.lowlevel.in_trio_run():
        raise RuntimeError("replay() starts its own trio.run, so it cannot be called from inside trio")
    clock = trio.testing.MockClock(autojump_threshold=0)
    with deterministic_scheduling(), sync_tools_inline():
        return trio.run(_replayed, agent, recording, store, ctx, config, clock=clock)


async def _replayed(
    agent: Agent[Any],
    recording: Recording,
    store: RunStore | None,
    ctx: RunContext[Any] | None,
    config: RunConfig | None,
) -> Simulation:
    run_ctx: RunContext[Any] = RunContext.ephemeral(None) if ctx is None else ctx
    start = trio.current_time()
    run_id = recording.run_id if store is not None else None
    stream = _runner(agent, config, store).run(agent, run_ctx, AgentInput.from_items(recording.input), run_id=run_id)
    try:
        result = await RunResultStreaming(stream).collect()
    except RunError as failure:
        elapsed = round(trio.current_time() - start, 9)
        return Simulation(events=failure.events, result=None, error=failure.error, elapsed=elapsed)  # noqa: ASYNC910
    return Simulation(events=result.events, result=result, error=None, elapsed=round(trio.current_time() - start, 9))
