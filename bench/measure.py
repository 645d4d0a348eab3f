"""Timing and memory measurement shared by every scenario module (standard library only).

Timed scenarios run back-to-back runs in batches sized to last about `batch_s` seconds each and
report CPU microseconds per run for every batch (and wall microseconds
beside them). Memory is read from ``/proc/self`` (Linux): the
resident set now (``statm``) and its high-water mark (``VmHWM``), which `reset_peak` clears.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Budget:
    """How long to measure: warm-up seconds, batch seconds, number of batches."""

    warmup_s: float = 0.3
    batch_s: float = 0.5
    batches: int = 7

    @classmethod
    def for_mode(cls, quick: bool) -> Budget:
        """The full budget, or a short one for a smoke run."""
        return cls(0.05, 0.1, 3) if quick else cls()

    def smaller(self) -> Budget:
        """A budget for scenarios that time many configurations in one process (S5)."""
        return Budget(self.warmup_s / 2, self.batch_s / 2, max(3, self.batches - 2))


async def timed_batches(run_once: Callable[[], Awaitable[object]], budget: Budget) -> dict[str, object]:
    """Warm up, size a batch to about `budget.batch_s`, then time `budget.batches` batches.

    Returns ``{"us": [CPU µs per run, one per batch], "wall_us": [wall µs per run], "runs_per_batch": n}``.
    The runs are CPU-bound (the fake model answers at once), so CPU time is the framework's cost;
    it is also far less disturbed than wall time by other work on a shared machine.
    """
    start = time.perf_counter()
    runs = 0
    while time.perf_counter() - start < budget.warmup_s or runs < 3:
        await run_once()
        runs += 1
    n = _batch_size(time.perf_counter() - start, runs, budget)
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(budget.batches):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(n):
            await run_once()
        cpu.append((time.process_time() - c0) / n * 1e6)
        wall.append((time.perf_counter() - w0) / n * 1e6)
    return {"us": cpu, "wall_us": wall, "runs_per_batch": n}


def timed_sync_batches(run_once: Callable[[], object], budget: Budget) -> dict[str, object]:
    """`timed_batches` for a synchronous callable."""
    start = time.perf_counter()
    runs = 0
    while time.perf_counter() - start < budget.warmup_s or runs < 3:
        run_once()
        runs += 1
    n = _batch_size(time.perf_counter() - start, runs, budget)
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(budget.batches):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(n):
            run_once()
        cpu.append((time.process_time() - c0) / n * 1e6)
        wall.append((time.perf_counter() - w0) / n * 1e6)
    return {"us": cpu, "wall_us": wall, "runs_per_batch": n}


def _batch_size(elapsed: float, runs: int, budget: Budget) -> int:
    return max(1, int(budget.batch_s / (elapsed / runs)))


def rss_bytes() -> int:
    """The resident set size of this process now."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


def peak_rss_bytes() -> int:
    """The high-water mark of the resident set since start or since the last `reset_peak`."""
    with open("/proc/self/status") as f:
        match = re.search(r"VmHWM:\s+(\d+)\s+kB", f.read())
    return int(match.group(1)) * 1024 if match else 0


def reset_peak() -> None:
    """Reset the resident-set high-water mark to the current size (Linux >= 4.0)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


async def concurrent_runs(
    run_all: Callable[[int], Awaitable[object]], n: int, reps: int, time_budget_s: float
) -> dict[str, object]:
    """S3/S8: run `run_all(n)` (n concurrent runs) up to `reps` times; wall, CPU, peak RSS per run.

    Stops repeating once `time_budget_s` of wall time is spent (after at least one repetition).
    """
    import gc

    gc.collect()
    before = rss_bytes()
    reset_peak()
    walls: list[float] = []
    cpus: list[float] = []
    spent = 0.0
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        await run_all(n)
        wall = time.perf_counter() - t0
        walls.append(wall)
        cpus.append(time.process_time() - c0)
        spent += wall
        if spent > time_budget_s:
            break
    peak = peak_rss_bytes()
    return {
        "n": n,
        "walls": walls,
        "cpus": cpus,
        "rss_before": before,
        "rss_peak": peak,
        "kib_per_run": (peak - before) / n / 1024,
    }
