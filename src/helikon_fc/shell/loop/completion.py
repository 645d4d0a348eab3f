"""`run_to_completion`: run an agent to its end from a trio program in one call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from ...core import AgentEvent
from ..context.run_context import RunContext
from ..input import AgentInput, as_input
from .protocol import Agent
from .results import RunResult, RunResultStreaming
from .runner import Runner

Ctx = TypeVar("Ctx")


@overload
async def run_to_completion(
    agent: Agent[None],
    input: AgentInput | str,
    ctx: None = None,
    *,
    runner: Runner | None = None,
    on_event: Callable[[AgentEvent], object] | None = None,
) -> RunResult[str]: ...


@overload
async def run_to_completion(
    agent: Agent[Ctx],
    input: AgentInput | str,
    ctx: RunContext[Ctx],
    *,
    runner: Runner | None = None,
    on_event: Callable[[AgentEvent], object] | None = None,
) -> RunResult[str]: ...


async def run_to_completion(
    agent: Agent[Any],
    input: AgentInput | str,
    ctx: RunContext[Any] | None = None,
    *,
    runner: Runner | None = None,
    on_event: Callable[[AgentEvent], object] | None = None,
) -> RunResult[str]:
    """Run `agent` on `input` to its end and return its result: ``await run_to_completion(agent, "Hi")``.

    The same as ``await RunResultStreaming(agent.run(ctx, input)).collect(on_event=on_event)``, or with
    a `runner`, ``runner.run(agent, ctx, input)`` (its config, deadline, session and store).

    Args:
        agent: any `Agent`.
        input: the user's message, or an `AgentInput`.
        ctx: the run context; ``RunContext.ephemeral(None)`` when `None`.
        runner: run through this `Runner` instead of calling ``agent.run`` directly.
        on_event: called with each event as it arrives (``helikon_fc.console.event_printer()`` prints
            them as ``helikon run`` does).

    Returns:
        The `RunResult`: the final output, every event, the usage.

    Raises:
        RunError: the run failed (`RunStartError`: it could not start).
        TypeError: `input` is neither a string nor an `AgentInput`.
    """
    input = as_input("run_to_completion", input)
    run_ctx: RunContext[Any] = ctx if ctx is not None else RunContext.ephemeral(None)
    stream = runner.run(agent, run_ctx, input) if runner is not None else agent.run(run_ctx, input)
    return await RunResultStreaming(stream).collect(on_event=on_event)
