"""Running one case once: the agent on the case's input, through a `Runner` (timeout, store); never raising."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import trio

from ..shell._checks import describe, is_agent
from ..shell.context.config import RunConfig
from ..shell.context.run_context import RunContext
from ..shell.durable.storage import RunStore
from ..shell.loop.protocol import Agent
from ..shell.loop.results import RunError, RunResultStreaming
from ..shell.loop.runner import Runner
from ..stores import MemoryStore
from ._case import Case
from ._observed import CaseRun, trajectory
from ._sub_runs import with_sub_run_calls

AgentSource: TypeAlias = "Agent[Any] | Callable[[Case], Agent[Any]]"
"""What an eval runs: one agent for every case, or a function building the agent for a case."""

ContextFactory: TypeAlias = Callable[[Case], object]
"""Builds a case's run context: a `RunContext` (with its permissions, session...), or any other value, which
becomes ``ctx.user`` of a fresh ``RunContext.ephemeral`` (the application's data its tools read)."""


async def run_case(
    source: AgentSource,
    case: Case,
    *,
    run_id: str | None,
    timeout: float | None,
    store: RunStore | None,
    context: ContextFactory | None,
) -> CaseRun:
    """Run the agent on `case` once; any failure (the agent's, a timeout, an exception) is the `CaseRun`'s error.

    So is a pause for approval: an eval has no one to approve, so a run that waits for approval fails its case.

    The run goes through ``Runner(config, store=store)``, where config is the agent's own `run_config` with
    `timeout`; so a timeout ends the run with ``RunFailed(TimedOut)`` and its records say so.
    """
    await trio.lowlevel.checkpoint()  # a run that cannot start returns at once: still a cancellation point
    started = trio.current_time()
    # Recorded in any case: the calls of agents called as tools are read from their sub-runs' logs.
    recorder, recorded_as = (store, run_id) if store is not None and run_id is not None else (MemoryStore(), "case")
    try:
        agent = _agent_for(source, case)
        own = getattr(agent, "run_config", None)
        config = (own if isinstance(own, RunConfig) else RunConfig()).with_timeout(timeout)
        runner = Runner(config, store=recorder)
        user = context(case) if context is not None else None
        ctx: RunContext[Any] = user if isinstance(user, RunContext) else RunContext.ephemeral(user)
        result = await RunResultStreaming(runner.run(agent, ctx, case.input, run_id=recorded_as)).collect()
    except RunError as exc:
        calls, agents = trajectory(exc.events)
        calls = await with_sub_run_calls(exc.events, calls, recorder, recorded_as)
        elapsed = trio.current_time() - started
        return CaseRun(
            output=None,
            error=str(exc.error) or type(exc.error).__name__,
            events=exc.events,
            calls=calls,
            agents=agents,
            run_id=run_id,
            elapsed=elapsed,
        )
    except Exception as exc:  # the agent's (or its factory's) bug is the case's failure, never the eval's crash
        elapsed = trio.current_time() - started
        return CaseRun(output=None, error=f"{type(exc).__name__}: {exc}", run_id=run_id, elapsed=elapsed)
    calls, agents = trajectory(result.events)
    calls = await with_sub_run_calls(result.events, calls, recorder, recorded_as)
    paused = f"the run paused for approval of {', '.join(p.tool for p in result.pending)}" if result.paused else None
    return CaseRun(
        output=result.final_output if not paused else None,
        error=paused,
        events=result.events,
        usage=result.usage,
        result=result,
        calls=calls,
        agents=agents,
        run_id=run_id,
        elapsed=trio.current_time() - started,
    )


def _agent_for(source: AgentSource, case: Case) -> Agent[Any]:
    if is_agent(source):
        return source  # type: ignore[return-value]
    built = source(case)  # type: ignore[operator]
    if not is_agent(built):
        raise TypeError(f"the agent factory returned {describe(built)} for case {case.name!r}, not an agent")
    return built
