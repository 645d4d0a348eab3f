"""Running one case once: the agent on the case's input, through a `Runner` (timeout, store); never raising."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import trio

from ..shell._checks import describe, is_agent
from ..shell.config import RunConfig
from ..shell.context import RunContext
from ..shell.protocol import Agent
from ..shell.results import RunError, RunResultStreaming
from ..shell.runner import Runner
from ..shell.storage import RunStore
from ._case import Case
from ._observed import CaseRun, trajectory

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
    try:
        agent = _agent_for(source, case)
        own = getattr(agent, "run_config", None)
        config = (own if isinstance(own, RunConfig) else RunConfig()).with_timeout(timeout)
        runner = Runner(config, store=store)
        user = context(case) if context is not None else None
        ctx: RunContext[Any] = user if isinstance(user, RunContext) else RunContext.ephemeral(user)
        result = await RunResultStreaming(runner.run(agent, ctx, case.input, run_id=run_id)).collect()
    except RunError as exc:
        calls, agents = trajectory(exc.events)
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
