"""`helikon demo`: run personal-finance agent systems on the simulator and render their event streams live."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import TextIO

import trio
import trio.testing

from ..core import Cancelled, RunCompleted, RunFailed
from ..models.protocol import Model
from ..pricing import default_prices
from ..shell.context.run_context import RunContext
from ..shell.input import AgentInput
from ..shell.tools.function_tool import sync_tools_inline
from .interrupts import until_interrupted
from .render import EventRenderer
from .resumed import play_resumed
from .scenarios import SCENARIOS, Scenario
from .terminal import line_width


def scenario_keys() -> tuple[str, ...]:
    """The keys `run_demo` accepts in `only`, in running order."""
    return tuple(build(None).key for build in SCENARIOS)


async def play(scenario: Scenario, renderer: EventRenderer, number: int, total: int) -> bool:
    """Run one scenario, rendering every event as it arrives; whether it ended as the scenario means to.

    A scenario with `cancel_after` is cancelled by the "user" after that many seconds and succeeds
    when its run ends cancelled; one with `interrupt_after_tool` is recorded, stopped and resumed
    (`play_resumed`) and succeeds when the resumed run completes; every other scenario succeeds when
    its run completes.
    """
    renderer.line(renderer.paint(f"== {number}/{total}  {scenario.title} ", "bold") + "=" * 20)
    renderer.line(renderer.paint(scenario.shows, "dim"))
    renderer.line(renderer.paint("user: ", "bold", "green") + scenario.question)
    if scenario.interrupt_after_tool:
        ok = await play_resumed(scenario, renderer)
        renderer.line()
        return ok
    ok = False
    ctx = RunContext.ephemeral(None)
    async with trio.open_nursery() as nursery:
        if scenario.cancel_after is not None:
            nursery.start_soon(_press_stop, ctx, scenario.cancel_after, renderer)
        async with scenario.agent.run(ctx, AgentInput.from_user_text(scenario.question)) as events:
            async for event in events:
                renderer.render(event)
                match event:
                    case RunCompleted():
                        ok = scenario.cancel_after is None
                    case RunFailed(error=Cancelled()):
                        ok = scenario.cancel_after is not None
                    case _:
                        pass
        nursery.cancel_scope.cancel()
    renderer.line()
    return ok


async def _press_stop(ctx: RunContext[None], seconds: float, renderer: EventRenderer) -> None:
    await trio.sleep(seconds)
    renderer.line(renderer.paint(f"  (the user presses stop after {seconds:g} s)", "yellow"))
    ctx.cancel("stopped by the user")


def run_demo(
    out: TextIO, *, color: bool = False, fast: bool = True, only: Sequence[str] = (), model: Model | None = None
) -> int:
    """Run the demo scenarios (all, or those whose keys are in `only`), writing to `out`.

    Args:
        out: where the rendering goes.
        color: whether to use ANSI colours.
        fast: run in virtual time (instant); otherwise scripted latencies and token pacing play in real time.
        only: scenario keys to run (see `scenario_keys`); empty for all.
        model: a real model every agent of every scenario runs on instead of its script (then the
            demo runs in real time, whatever `fast` says, and its usage is the model's).

    Returns:
        The process exit status: 0 when every scenario ran as intended.
    """
    scenarios = [build(model) for build in SCENARIOS]
    if only:
        scenarios = [s for s in scenarios if s.key in only]
    renderer = EventRenderer(out, color=color, simulated=model is None, width=line_width(out), prices=default_prices())
    note = (
        " - no API key, no network: every model above is helikon_fc.testing's simulator."
        if model is None
        else f" - every agent above ran on {model.name}."
    )

    async def main() -> int:
        failures = 0
        async with AsyncExitStack() as stack:
            if isinstance(model, AbstractAsyncContextManager):
                await stack.enter_async_context(model)  # one client for the whole demo, closed at the end
            for number, scenario in enumerate(scenarios, start=1):
                if not await play(scenario, renderer, number, len(scenarios)):
                    failures += 1
        renderer.line(
            renderer.paint(f"{len(scenarios) - failures}/{len(scenarios)} scenarios ran as intended", "bold")
            + renderer.paint(note, "dim")
        )
        return 0 if failures == 0 else 1  # noqa: ASYNC910 - each scenario played awaited; with none there is nothing to wait for

    if fast and model is None:
        with sync_tools_inline():  # virtual time: a worker thread would look idle to the clock
            status = trio.run(until_interrupted, main, clock=trio.testing.MockClock(autojump_threshold=0))
    else:
        status = trio.run(until_interrupted, main)
    if status is None:
        raise KeyboardInterrupt  # outside trio: the CLI says "interrupted (Ctrl-C)" and exits 130
    return status[0]


__all__ = ["run_demo", "scenario_keys"]
