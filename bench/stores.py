"""``python -m bench.stores [--quick]``: what one append costs on each store.

For every store (memory, SQLite with ``synchronous="full"`` and ``"normal"``, PostgreSQL on a
server of its own with fsync on), it times, one after another from a single trio task:

- a session append of one item (``session.append([item])``), and
- a run-record append of one record (``append_run_records(run_id, [record], "running")``, the
  write a checkpoint makes per transition boundary),

then 16 tasks appending one item each at once (the throughput a busy process gets). Figures are
wall and CPU microseconds per append (median of the batches; `bench.measure.timed_batches`), and
are written to ``bench/results/stores.md`` as well as printed.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import trio

from helikon_fc import UserMessage
from helikon_fc.stores import MemoryStore, PostgresStore, RunRecord, SQLiteStore, StoreBase

from .measure import Budget, timed_batches

RESULTS = Path(__file__).resolve().parent / "results"
ITEM = UserMessage("What did I spend on groceries last month, and how does it compare with the month before?")
BODY = '{"type":"boundary","state":{"type":"calling_model","turn":1},"events":[],"action":{"type":"call_model"}}'


@contextmanager
def stores() -> Iterator[list[tuple[str, Callable[[], StoreBase]]]]:
    """(label, factory) for every store to measure; Postgres only where its binaries are installed."""
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="helikon-bench-")))
        counter = itertools.count()
        chosen: list[tuple[str, Callable[[], StoreBase]]] = [
            ("memory", MemoryStore),
            ("sqlite (synchronous=full)", lambda: SQLiteStore(folder / f"full{next(counter)}.db")),
            (
                "sqlite (synchronous=normal)",
                lambda: SQLiteStore(folder / f"normal{next(counter)}.db", synchronous="normal"),
            ),
        ]
        try:
            from tests.stores.postgres_server import PostgresUnavailable, running_postgres

            server = stack.enter_context(running_postgres(fast=False))
            chosen.append(("postgres (fsync on, loopback)", lambda: PostgresStore(server.dsn())))
        except (ImportError, PostgresUnavailable) as exc:
            print(f"[bench.stores] PostgreSQL skipped: {exc}", file=sys.stderr)
        yield chosen


async def measure(new_store: Callable[[], StoreBase], budget: Budget) -> dict[str, float]:
    """Median wall and CPU µs per append, one at a time and 16 at once."""
    async with new_store() as store:
        session = store.session("bench")
        run_id = f"bench-{time.time_ns()}"
        await store.create_run(run_id, "bench")
        seq = itertools.count()

        async def append_item() -> None:
            await session.append([ITEM])

        async def append_record() -> None:
            await store.append_run_records(run_id, [RunRecord(next(seq), "boundary", BODY)], "running")

        async def sixteen_at_once() -> None:
            async with trio.open_nursery() as nursery:
                for _ in range(16):
                    nursery.start_soon(append_item)

        figures: dict[str, float] = {}
        for name, once, per in (("item", append_item, 1), ("record", append_record, 1), ("x16", sixteen_at_once, 16)):
            timed = await timed_batches(once, budget)
            figures[f"{name}_wall"] = _median(timed["wall_us"]) / per
            figures[f"{name}_cpu"] = _median(timed["us"]) / per
        return figures


def _median(values: object) -> float:
    assert isinstance(values, list)
    return float(statistics.median(values))


def render(rows: list[tuple[str, dict[str, float]]]) -> str:
    """The figures as a markdown table."""
    lines = [
        "| store | session append, 1 item | run-record append, 1 record | 16 tasks at once, per item |",
        "| --- | --- | --- | --- |",
    ]
    for label, f in rows:
        cells = [f"{f[k + '_wall']:,.0f} µs wall ({f[k + '_cpu']:,.0f} µs CPU)" for k in ("item", "record", "x16")]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stores", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run: short batches")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where stores.md goes")
    args = parser.parse_args(argv)
    budget = Budget.for_mode(args.quick)
    rows: list[tuple[str, dict[str, float]]] = []
    with stores() as chosen:
        for label, factory in chosen:
            rows.append((label, trio.run(measure, factory, budget)))
            print(f"[bench.stores] {label}: done", file=sys.stderr)
    table = render(rows)
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "stores.md").write_text(table)
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
