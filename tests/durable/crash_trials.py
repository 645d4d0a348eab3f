"""The crash trials: kill the scenario in a subprocess (at each record write in turn, and at random
moments), resume it in a fresh process, and check it against the uninterrupted run.

Processes are chained to halve their number: process k resumes trial k-1 (a fresh process: the one
that crashed is dead) and then starts trial k, which kills it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio
import trio.testing
from tests.durable.harness import crash_after, logs, settled, without_announcements

from helikon_fc.core import AgentEvent, RunCompleted, from_json
from helikon_fc.stores import MemoryStore, PostgresStore, SQLiteStore, StoreBase

ROOT = Path(__file__).resolve().parents[2]


@attrs.frozen
class Trial:
    """One crash: after the `after`-th record write (`after` > 0), or `delay` seconds into the run."""

    index: int
    after: int = 0
    delay: float = 0.0
    replay: bool = False


def open_store(location: str) -> StoreBase:
    """The store at `location`, with one connection (a crash-test process runs one run at a time)."""
    if location.startswith("postgresql://"):
        return PostgresStore(location, pool_size=1)
    return SQLiteStore(location)


def count_writes() -> int:
    """How many record writes the uninterrupted scenario makes (the same on every store)."""

    async def count() -> int:
        _, writes = await crash_after(MemoryStore(), 10**9)
        return writes

    return trio.run(count, clock=trio.testing.MockClock(autojump_threshold=0))


def plan(writes: int, total: int, seed: int) -> list[Trial]:
    """A kill at each write in turn (the last write ends the run, so up to `writes - 1`; fewer,
    evenly spread, when `total` is smaller), then random moments up to `total` trials; every other
    random trial resumes with ``replay=True``."""
    points = range(1, writes)
    if total < len(points):
        points = range(1, writes, -(-len(points) // total))
    trials = [Trial(index, after=after) for index, after in enumerate(points)]
    rng = random.Random(seed)
    while len(trials) < total:
        index = len(trials)
        trials.append(Trial(index, delay=rng.random(), replay=index % 2 == 0))
    return trials


class ForkServer:
    """The `crash_child` fork server: one process importing everything once, forking one per job list."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.durable.crash_child"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def start(self, jobs: list[dict[str, Any]]) -> int:
        """Fork a process running `jobs`; its pid."""
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(jobs) + "\n")
        self._process.stdin.flush()
        line = self._line()
        assert line.startswith("PID "), line
        return int(line.split()[1])

    def wait_for(self, marker: str) -> None:
        """Read the forked process's output up to the line `marker`."""
        while (line := self._line()) != marker:
            assert not line.startswith("EXIT "), f"the process ended before {marker}: {line}"

    def ended(self, pid: int) -> int:
        """Wait for the process `pid` to end; its status (-9: killed by SIGKILL)."""
        while not (line := self._line()).startswith("EXIT "):
            pass
        _, ended, status = line.split()
        assert int(ended) == pid, line
        return int(status)

    def _line(self) -> str:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        assert line, "the fork server died"
        return line.strip()

    def close(self) -> None:
        """Stop the server."""
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=60)
        if self._process.stdout is not None:
            self._process.stdout.close()


def run_trials(trials: list[Trial], location: Callable[[str], str], base: Path) -> Path:
    """Run the baseline and every trial, each crash in a process of its own and each resume in a
    fresh one; return the baseline's folder."""
    server = ForkServer()
    try:
        baseline = base / "baseline"
        baseline.mkdir()
        pid = server.start([{"op": "baseline", "store": location("baseline"), "dir": str(baseline)}])
        assert server.ended(pid) == 0, "the baseline run failed"
        seconds = float((baseline / "seconds-baseline.txt").read_text())
        previous: Trial | None = None
        for trial in [*trials, None]:
            jobs: list[dict[str, Any]] = []
            if previous is not None:
                jobs.append(_job("resume", previous, location, base) | {"replay": previous.replay})
            if trial is not None:
                (base / f"t{trial.index}").mkdir()
                jobs.append(_job("crash", trial, location, base) | {"after": trial.after})
            pid = server.start(jobs)
            if trial is not None:
                server.wait_for("CRASH-PHASE")
                if trial.after == 0:
                    time.sleep(trial.delay * seconds * 1.2)
                    _kill(pid)
            status = server.ended(pid)
            # killed (by its store after the chosen write, or at the random moment), or finished before the moment came
            assert status in ((-signal.SIGKILL, 0) if trial is not None else (0,)), (trial, status)
            previous = trial
    finally:
        server.close()
    return baseline


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # it had finished already
        pass


def _job(op: str, trial: Trial, location: Callable[[str], str], base: Path) -> dict[str, Any]:
    return {"op": op, "store": location(f"t{trial.index}"), "dir": str(base / f"t{trial.index}")}


def read_events(path: Path) -> list[AgentEvent]:
    """The events a job delivered (none when the file is missing)."""
    if not path.exists():
        return []
    return [from_json(AgentEvent, line) for line in path.read_text().splitlines() if line]


def read_effects(path: Path) -> Counter[tuple[str, str]]:
    """How often each ``(run_id, call_id)`` did its effect."""
    lines = path.read_text().splitlines() if path.exists() else []
    return Counter((line.split("\t")[0], line.split("\t")[1]) for line in lines if line)


def stored_logs(location: str) -> dict[str, list[Any]]:
    """Every run's decoded records at `location`."""

    async def read() -> dict[str, list[Any]]:
        async with open_store(location) as store:
            return await logs(store)

    return trio.run(read)


def check_trial(trial: Trial, folder: Path, location: str, baseline: Path, expected_log: dict[str, list[Any]]) -> None:
    """The resumed trial ends as the baseline did (the same records in every run's log, the same
    terminal event, the same events delivered); no recorded call ran twice; no effect was lost."""
    assert stored_logs(location) == expected_log, trial
    base_events = read_events(baseline / "events-baseline.jsonl")
    resumed = read_events(folder / "events-resume.jsonl")
    crashed = read_events(folder / "events-crash.jsonl")
    assert settled(resumed[-1]) == settled(base_events[-1]), trial  # the same terminal event: result and usage
    assert isinstance(resumed[-1], RunCompleted)
    expected = Counter(without_announcements(base_events))
    if trial.replay:
        assert Counter(without_announcements(resumed)) == expected, trial
    else:
        assert not Counter(without_announcements(resumed)) - expected, trial
    assert not Counter(without_announcements(crashed)) - expected, trial
    effects = read_effects(folder / "effects.txt")
    assert set(effects) == set(read_effects(baseline / "effects.txt")), trial
    recorded = {tuple(pair) for pair in json.loads((folder / "recorded.json").read_text())}
    for key in recorded & set(effects):
        assert effects[key] == 1, (trial, key)
