"""`simulate`: run an agent to its end under trio's `MockClock`, and keep everything it did."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, overload

import attrs
import trio
import trio.testing

from ..core import AgentError, AgentEvent
from ..shell import _checks
from ..shell.context.config import RunConfig
from ..shell.context.run_context import RunContext
from ..shell.input import AgentInput
from ..shell.loop.protocol import Agent
from ..shell.loop.results import RunError, RunResult, RunResultStreaming
from ..shell.loop.runner import Runner
from ..shell.tools.function_tool import sync_tools_inline

Ctx = TypeVar("Ctx")


@attrs.frozen(kw_only=True)
class Simulation:
    """Everything a simulated run did. Same agent, input and script: the same `Simulation`, every time.

    Attributes:
        events: every event of the run, in order (empty if it could not start).
        result: the `RunResult` of a successful run, or `None` if it failed.
        error: why the run failed (the `AgentError` of its `RunFailed`, or of the failure to
            start), or `None` if it succeeded.
        elapsed: how long the run took, in virtual seconds (scripted latencies, tool sleeps,
            timeouts), rounded to the nanosecond so that latencies of 0.4 and 0.2 s add up to 0.6.
    """

    events: tuple[AgentEvent, ...]
    result: RunResult[str] | None
    error: AgentError | None
    elapsed: float


@overload
def simulate(
    agent: Agent[None],
    input: str | AgentInput,
    ctx: None = None,
    config: RunConfig | None = None,
    *,
    deterministic: bool = True,
) -> Simulation: ...


@overload
def simulate(
    agent: Agent[Ctx],
    input: str | AgentInput,
    ctx: RunContext[Ctx],
    config: RunConfig | None = None,
    *,
    deterministic: bool = True,
) -> Simulation: ...


def simulate(
    agent: Agent[Any],
    input: str | AgentInput,
    ctx: RunContext[Any] | None = None,
    config: RunConfig | None = None,
    *,
    deterministic: bool = True,
) -> Simulation:
    """Run `agent` on `input` to its end in a fresh ``trio.run`` with virtual time; return what happened.

    Latencies, tool sleeps and timeouts cost no real time: the run uses
    ``trio.testing.MockClock(autojump_threshold=0)``, which jumps the clock whenever every task waits,
    and runs sync function tools inline (`sync_tools_inline`), since a worker thread would look idle
    to the clock.

    Args:
        agent: any `Agent` (usually one whose model is a `ScriptedModel` or `FunctionModel`).
        input: a user message, or an `AgentInput`.
        ctx: the run context; a fresh ``RunContext.ephemeral(None)`` when `None`.
        config: when given, the run goes through ``Runner(config)`` (which honours `timeout`);
            otherwise ``agent.run`` is called directly.
        deterministic: run under `deterministic_scheduling`, so concurrent branches interleave the
            same way every time. `False` leaves trio's scheduler alone (its order of simultaneous
            wake-ups then varies from run to run).

    Raises:
        TypeError: an argument is of the wrong kind (for example `input` neither a string nor an
            `AgentInput`).
        RuntimeError: called from inside a trio run (use ``await run_simulated(...)`` there).
    """
    _check_arguments("simulate", agent, input, ctx, config)
    if trio.lowlevel.in_trio_run():
        raise RuntimeError(
            "simulate() starts its own trio.run, so it cannot be called from inside trio;"
            " in an async test use `await run_simulated(...)` with the autojump_clock fixture"
        )
    clock = trio.testing.MockClock(autojump_threshold=0)
    with deterministic_scheduling() if deterministic else _nothing(), sync_tools_inline():
        return trio.run(_run, agent, input, ctx, config, clock=clock)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


_SCHEDULER_SEED = 0
_SCHEDULER_LOCK = threading.Lock()


@contextmanager
def deterministic_scheduling() -> Iterator[None]:
    """Make trio's scheduler take the same decisions on every run inside the block.

    trio deliberately varies the order in which tasks that became runnable together are run (and
    tasks woken by equal deadlines become runnable in an order that depends on object ids), so
    that code cannot come to rely on one order. Concurrent branches that emit events at the same
    virtual instant would then interleave differently from run to run. `simulate` promises the
    same events every run, so for the duration of the run it switches on the deterministic mode
    trio keeps for reproducible tests (each batch of runnable tasks is put in task-creation order,
    then shuffled by a seeded random source), and restores trio's settings afterwards.

    trio keeps that mode in process-wide globals (its hook for Hypothesis, which has no public
    name): this is the one place helikon_fc touches them. While the block runs it holds a
    process-wide lock, so simulations in several threads take turns instead of overwriting each
    other's settings; pass ``simulate(..., deterministic=False)`` to leave trio alone.
    """
    from trio._core import _run as scheduler  # trio offers this hook to Hypothesis; it has no public name

    rng = getattr(scheduler, "_r", None)
    if rng is None or not hasattr(scheduler, "_ALLOW_DETERMINISTIC_SCHEDULING"):  # pragma: no cover
        yield  # a trio without the hook: tests/testing/test_simulate_determinism.py will say so
        return
    with _SCHEDULER_LOCK:
        saved_state = rng.getstate()
        saved_flag = scheduler._ALLOW_DETERMINISTIC_SCHEDULING
        rng.seed(_SCHEDULER_SEED)
        setattr(scheduler, "_ALLOW_DETERMINISTIC_SCHEDULING", True)  # noqa: B010 - the module declares it Final
        try:
            yield
        finally:
            setattr(scheduler, "_ALLOW_DETERMINISTIC_SCHEDULING", saved_flag)  # noqa: B010
            rng.setstate(saved_state)


@overload
async def run_simulated(
    agent: Agent[None], input: str | AgentInput, ctx: None = None, config: RunConfig | None = None
) -> Simulation: ...


@overload
async def run_simulated(
    agent: Agent[Ctx], input: str | AgentInput, ctx: RunContext[Ctx], config: RunConfig | None = None
) -> Simulation: ...


async def run_simulated(
    agent: Agent[Any],
    input: str | AgentInput,
    ctx: RunContext[Any] | None = None,
    config: RunConfig | None = None,
) -> Simulation:
    """The async twin of `simulate`, for use inside a trio run whose clock is a `MockClock`.

    In pytest-trio, take the ``autojump_clock`` fixture in the test. `elapsed` is measured on the
    run's clock, so it is virtual time.

    Raises:
        RuntimeError: the current trio run's clock is not a ``trio.testing.MockClock`` (a real
            clock would make latencies cost real time and `elapsed` vary from run to run).
    """
    _check_arguments("run_simulated", agent, input, ctx, config)
    if not isinstance(trio.lowlevel.current_clock(), trio.testing.MockClock):
        raise RuntimeError(
            "run_simulated() needs virtual time: run it under trio.testing.MockClock"
            " (in pytest-trio, take the autojump_clock fixture), or call simulate() from sync code"
        )
    with sync_tools_inline():
        return await _run(agent, input, ctx, config)


def _check_arguments(owner: str, agent: object, input: object, ctx: object, config: object) -> None:
    """Refuse arguments a simulated run could not use, before any trio run starts."""
    _checks.require_agent(owner, "agent", agent)
    _checks.require_type(owner, "input", input, (str, AgentInput), "a string or an AgentInput")
    if ctx is not None:
        _checks.require_type(owner, "ctx", ctx, RunContext, "a RunContext or None")
    if config is not None:
        _checks.require_type(owner, "config", config, RunConfig, "a RunConfig or None")


async def _run(
    agent: Agent[Any],
    input: str | AgentInput,
    ctx: RunContext[Any] | None,
    config: RunConfig | None,
) -> Simulation:
    agent_input = AgentInput.from_user_text(input) if isinstance(input, str) else input
    run_ctx: RunContext[Any] = RunContext.ephemeral(None) if ctx is None else ctx
    start = trio.current_time()

    def elapsed() -> float:
        return round(trio.current_time() - start, 9)

    try:
        if config is None:
            run = agent.run(run_ctx, agent_input)
        else:
            run = Runner(config).run(agent, run_ctx, agent_input)
        result = await RunResultStreaming(run).collect()
    except RunError as failure:
        return Simulation(events=failure.events, result=None, error=failure.error, elapsed=elapsed())  # noqa: ASYNC910 - `collect` awaited
    return Simulation(events=result.events, result=result, error=None, elapsed=elapsed())
