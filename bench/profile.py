"""Profile helikon_fc on a bench scenario: ``python -m bench.profile S2`` (or S1, S3, S4) prints a pyinstrument tree.

Needs pyinstrument (in the ``bench`` extra). ``--gc`` also reports how much of the run the cyclic garbage
collector took (by running it once more with the collector disabled), which is what separates S3 from S2.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Awaitable, Callable

import trio

from helikon_fc import LlmAgent, RunContext

from . import script
from .scenarios import helikon


def workload(scenario: str) -> tuple[Callable[[], Awaitable[None]], int]:
    """The async callable to profile for `scenario`, and how many times to call it."""
    if scenario == "S1":
        a = helikon.agent(helikon.BenchModel(rounds=0, text=script.S1_TEXT), tools=False)
        return (lambda: _run(a)), 20_000
    if scenario == "S2":
        a = helikon.agent(helikon.BenchModel())
        return (lambda: _run(a)), 3_000
    if scenario == "S4":
        a = helikon.agent(helikon.BenchModel(chunks=script.FINAL_CHUNKS))
        return (lambda: _stream(a)), 3_000
    if scenario == "S3":
        fan_out = helikon._fan_out_with(helikon.agent(helikon.BenchModel(latency=script.LATENCY)))
        return (lambda: fan_out(script.S3_RUNS)), 3
    raise SystemExit(f"profile supports S1, S2, S3 and S4, not {scenario}")


async def _run(a: LlmAgent[None]) -> None:
    await helikon.run(a)


async def _stream(a: LlmAgent[None]) -> None:
    async with a.run(RunContext.ephemeral(None), helikon.PROMPT_INPUT) as events:
        async for _ in events:
            pass


def _repeat(once: Callable[[], Awaitable[None]], times: int) -> float:
    async def main() -> None:
        for _ in range(times):
            await once()

    start = time.process_time()
    trio.run(main)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=["S1", "S2", "S3", "S4"])
    parser.add_argument("--gc", action="store_true", help="also measure the share of the garbage collector")
    args = parser.parse_args(argv)
    from pyinstrument import Profiler  # type: ignore[import-not-found, unused-ignore]

    once, times = workload(args.scenario)
    _repeat(once, max(1, times // 10))  # warm up
    gc_line = ""
    if args.gc:
        # Before profiling: the profiler's recorded frames would enlarge the heap every collection walks.
        with_gc = _repeat(once, times)
        gc.disable()
        try:
            without_gc = _repeat(once, times)
        finally:
            gc.enable()
        share = 1 - without_gc / with_gc
        gc_line = f"CPU {with_gc:.2f} s with the garbage collector, {without_gc:.2f} s without: GC {share:.0%}"
    profiler = Profiler(interval=0.0002)
    profiler.start()
    _repeat(once, times)
    profiler.stop()
    print(profiler.output_text(show_all=False))
    if gc_line:
        print(gc_line)


if __name__ == "__main__":
    main()
