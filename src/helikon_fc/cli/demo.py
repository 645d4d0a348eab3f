"""`helikon demo`: run the seed's finance examples on the simulator and render their event streams live."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

import trio
import trio.testing

from ..core import RunCompleted
from ..shell.context import RunContext
from ..shell.function_tool import sync_tools_inline
from ..shell.input import AgentInput
from .render import EventRenderer
from .scenarios import SCENARIOS, Scenario


def scenario_keys() -> tuple[str, ...]:
    """The keys `run_demo` accepts in `only`, in running order."""
    return tuple(build().key for build in SCENARIOS)


async def play(scenario: Scenario, renderer: EventRenderer, number: int, total: int) -> bool:
    """Run one scenario, rendering every event as it arrives; whether it completed."""
    renderer.line(renderer.paint(f"== {number}/{total}  {scenario.title} ", "bold") + "=" * 20)
    renderer.line(renderer.paint(scenario.shows, "dim"))
    renderer.line(renderer.paint("user: ", "bold", "green") + scenario.question)
    ok = False
    async with scenario.agent.run(RunContext.ephemeral(None), AgentInput.from_user_text(scenario.question)) as events:
        async for event in events:
            renderer.render(event)
            ok = isinstance(event, RunCompleted)
    renderer.line()
    return ok


def run_demo(out: TextIO, *, color: bool = False, fast: bool = True, only: Sequence[str] = ()) -> int:
    """Run the demo scenarios (all, or those whose keys are in `only`), writing to `out`.

    Args:
        out: where the rendering goes.
        color: whether to use ANSI colours.
        fast: run in virtual time (instant); otherwise scripted latencies and token pacing play in real time.
        only: scenario keys to run (see `scenario_keys`); empty for all.

    Returns:
        The process exit status: 0 when every scenario completed.
    """
    scenarios = [build() for build in SCENARIOS]
    if only:
        scenarios = [s for s in scenarios if s.key in only]
    renderer = EventRenderer(out, color=color)

    async def main() -> int:
        failures = 0
        for number, scenario in enumerate(scenarios, start=1):
            if not await play(scenario, renderer, number, len(scenarios)):
                failures += 1
        renderer.line(
            renderer.paint(f"{len(scenarios) - failures}/{len(scenarios)} scenarios completed", "bold")
            + renderer.paint(" - no API key, no network: every model above is helikon_fc.testing's simulator.", "dim")
        )
        return 0 if failures == 0 else 1  # noqa: ASYNC910 - each scenario played awaited; with none there is nothing to wait for

    if fast:
        with sync_tools_inline():  # virtual time: a worker thread would look idle to the clock
            return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return trio.run(main)


__all__ = ["run_demo", "scenario_keys"]
