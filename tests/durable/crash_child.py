"""The processes the crash tests kill: ``python -m tests.durable.crash_child`` is a fork server.

It imports everything once, then reads one JSON list of jobs per line on stdin; for each line it
forks a fresh process that runs the jobs in order and exits, and reports ``PID <pid>`` when the
process starts and ``EXIT <pid> <status>`` when it has ended (a status of -9: killed by SIGKILL).
Each process forked is fresh as far as a run can tell: the server never runs anything itself.
Jobs, each on a store location and a trial folder:

- ``{"op": "baseline", ...}``: the scenario uninterrupted;
- ``{"op": "crash", "after": N, ...}``: the scenario, killed with SIGKILL right after its N-th
  record write (its store is wrapped in a `KillingStore`; ``after: 0``: not killed from inside,
  the parent kills it at a random moment).
  Before starting it prints ``CRASH-PHASE`` on stdout, so the parent knows when to start its clock;
- ``{"op": "resume", "replay": bool, ...}``: first the calls whose results are recorded are written
  to ``recorded.json``, then the run is resumed to its end.

Every job appends the events it receives to ``events-<op>.jsonl`` (one wire-format event a line)
and every tool appends ``run_id<TAB>call_id<TAB>label`` to ``effects.txt``, both unbuffered, so
what happened before a SIGKILL is on disk.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import trio
import trio.testing
from tests.durable.crash_trials import open_store
from tests.durable.crashing_store import KillingStore
from tests.durable.harness import PROMPT, RUN_ID, finished_calls, logs
from tests.durable.scenario import build

from helikon_fc import AgentInput, RunContext, Runner
from helikon_fc.core import to_json
from helikon_fc.shell.durable import run_log as durable
from helikon_fc.stores import StoreBase


def _appender(path: Path) -> Any:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(line: str) -> None:
        os.write(fd, (line + "\n").encode())

    return append


async def _job(job: dict[str, Any]) -> None:
    folder = Path(job["dir"])
    op: str = job["op"]
    effect_line = _appender(folder / "effects.txt")
    event_line = _appender(folder / f"events-{op}.jsonl")
    agent = build(lambda run_id, call_id, label: effect_line(f"{run_id}\t{call_id}\t{label}"))
    after = int(job.get("after", 0))
    async with open_store(job["store"]) as opened:
        store: StoreBase | KillingStore = KillingStore(opened, after) if op == "crash" and after else opened
        runner = Runner(store=store)
        ctx = RunContext.ephemeral(None)
        if op == "resume":
            recorded = sorted(finished_calls(await logs(store)))
            (folder / "recorded.json").write_text(json.dumps(recorded))
            stream = runner.resume(RUN_ID, agent, ctx, replay=bool(job.get("replay")))
            if not await durable.run_exists(store, RUN_ID):  # killed before its first record: start again
                stream = runner.run(agent, ctx, AgentInput.from_user_text(PROMPT), run_id=RUN_ID)
        else:
            if op == "crash":
                sys.stdout.write("CRASH-PHASE\n")
                sys.stdout.flush()
            stream = runner.run(agent, ctx, AgentInput.from_user_text(PROMPT), run_id=RUN_ID)
        started = time.perf_counter()
        async with stream as events:
            async for event in events:
                event_line(to_json(event))
        (folder / f"seconds-{op}.txt").write_text(str(time.perf_counter() - started))


def _run_jobs(jobs: list[dict[str, Any]]) -> None:
    for job in jobs:
        trio.run(_job, job, clock=trio.testing.MockClock(autojump_threshold=0))


def _status(wait_status: int) -> int:
    return -os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else os.WEXITSTATUS(wait_status)


def main() -> None:
    for line in sys.stdin:
        jobs = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _run_jobs(jobs)
            except BaseException as exc:  # report, never return into the server's loop
                sys.stderr.write(f"job failed: {type(exc).__name__}: {exc}\n")
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        sys.stdout.write(f"PID {pid}\n")
        sys.stdout.flush()
        _, wait_status = os.waitpid(pid, 0)
        sys.stdout.write(f"EXIT {pid} {_status(wait_status)}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
