"""``python -m bench.durable [--quick]``: what recording a run costs.

- **Checkpoint cost per transition**: one S2 run (the bench agent: tool rounds, then an answer)
  under ``Runner(store=...)`` against the same run without a store, one run after another from a
  single task; the difference divided by the record writes the run makes (one transaction per
  boundary, one per finished tool call).
- **S3 with a store**: 2,000 concurrent runs, 50 ms model latency, under ``Runner(store=SQLiteStore)``
  against ``Runner()``, the two taken in turn; wall time and the ratio (target: at most 1.2x).

Results go to ``bench/results/durable.md`` and stdout. PostgreSQL is measured when its binaries are
installed (a server of its own, fsync on, loopback).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import trio

from helikon_fc import Runner, RunResultStreaming
from helikon_fc.core import RunCompleted
from helikon_fc.stores import PostgresStore, SQLiteStore, StoreBase

from . import script
from .scenarios.helikon import PROMPT_INPUT, BenchModel, agent

RESULTS = Path(__file__).resolve().parent / "results"


@contextmanager
def stores(quick: bool) -> Iterator[list[tuple[str, Callable[[], StoreBase]]]]:
    """(label, new store) for each database measured."""
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="helikon-durable-")))
        count = iter(range(10**6))
        chosen: list[tuple[str, Callable[[], StoreBase]]] = [
            ("sqlite (synchronous=normal)", lambda: SQLiteStore(folder / f"n{next(count)}.db", synchronous="normal")),
            ("sqlite (synchronous=full)", lambda: SQLiteStore(folder / f"f{next(count)}.db")),
        ]
        try:
            from tests.stores.conftest import fresh_database
            from tests.stores.postgres_server import PostgresUnavailable, running_postgres

            server = stack.enter_context(running_postgres(fast=False))
            chosen.append(("postgres (fsync on, loopback)", lambda: PostgresStore(fresh_database(server))))
        except (ImportError, PostgresUnavailable) as exc:
            print(f"[bench.durable] PostgreSQL skipped: {exc}", file=sys.stderr)
        yield chosen


async def _one_run(runner: Runner) -> None:
    result = await RunResultStreaming(runner.run(agent(BenchModel()), _ctx(), PROMPT_INPUT)).collect()
    assert result.final_output == script.FINAL_TEXT, result.final_output


def _ctx():  # type: ignore[no-untyped-def]
    from helikon_fc import RunContext

    return RunContext.ephemeral(None)


async def _writes_per_run(store: StoreBase) -> int:
    """How many record transactions one bench run makes (counted from its records' batches)."""
    await _one_run(Runner(store=store))
    total = 0
    for summary in await store.runs():
        total += summary.records
    return total


async def _seconds_per_run(runner: Runner, runs: int) -> float:
    samples: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        await _one_run(runner)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


async def checkpoint_cost(new_store: Callable[[], StoreBase], runs: int) -> dict[str, float]:
    """Median seconds of one run with and without the store, and the extra per record written."""
    async with new_store() as store:
        records = await _writes_per_run(store)
        bare = await _seconds_per_run(Runner(), runs)
        recorded = await _seconds_per_run(Runner(store=store), runs)
    return {"bare": bare, "recorded": recorded, "records": records, "per_record": (recorded - bare) / records}


async def _fan_out(runner: Runner, n: int) -> float:
    a = agent(BenchModel(latency=script.LATENCY))
    done = [0]

    async def one() -> None:
        async with runner.run(a, _ctx(), PROMPT_INPUT) as events:
            async for event in events:
                if isinstance(event, RunCompleted):
                    done[0] += 1

    started = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for _ in range(n):
            nursery.start_soon(one)
    assert done[0] == n
    return time.perf_counter() - started


async def s3_with_store(new_store: Callable[[], StoreBase], n: int, reps: int) -> dict[str, float]:
    """Best-of-`reps` wall seconds of S3 without a store and with one, taken in turn (without, with, without, ...)
    so that a load that changes during the measurement weighs on both alike."""
    bare: list[float] = []
    recorded: list[float] = []
    for _ in range(reps):
        bare.append(await _fan_out(Runner(), n))
        async with new_store() as store:
            recorded.append(await _fan_out(Runner(store=store), n))
    return {"bare": min(bare), "recorded": min(recorded), "ratio": min(recorded) / min(bare)}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.durable")
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer runs and repetitions")
    quick = parser.parse_args().quick
    runs, n, reps = (5, 200, 1) if quick else (30, script.S3_RUNS, 3)
    lines = [
        "# Durable runs: what recording costs",
        "",
        f"One bench run ({script.MODEL_TURNS} model turns, {script.TOOL_CALLS} tool calls) with and without a "
        f"store, median of {runs}; S3 = {n} concurrent runs with {script.LATENCY * 1000:.0f} ms model latency, "
        f"best of {reps}.",
        "",
        "| store | records per run | µs per run without | with | µs per record | S3 s without | with | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with stores(quick) as chosen:
        for label, new_store in chosen:
            cost = trio.run(checkpoint_cost, new_store, runs)
            s3 = trio.run(s3_with_store, new_store, n, reps)
            lines.append(
                f"| {label} | {cost['records']:.0f} | {cost['bare'] * 1e6:.0f} | {cost['recorded'] * 1e6:.0f} "
                f"| {cost['per_record'] * 1e6:.0f} | {s3['bare']:.2f} | {s3['recorded']:.2f} | {s3['ratio']:.2f}x |"
            )
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "durable.md").write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
