"""A run that survives its process being killed: record it in SQLite, kill it mid-run, resume it elsewhere.

    python examples/durable_resume.py

The script runs the agent in a child process that kills itself with SIGKILL right after its 3rd
record write (its store, `DiesAfterWrites`, does it: the opening with the first boundary, the
model's answer with the boundary after it, then the first lookup's result), in the middle of a
round of three lookups; then, in this process, it resumes the run from the SQLite file. The lookup
recorded as finished is not made again; the two that were in flight are made again with the same
idempotency keys (each tool writes its key to a log once its work is done: a real tool would
deduplicate on it); the run ends with the answer and the usage of an uninterrupted run. It runs on
the scripted simulator: no key, no network.

The first attempt runs on the real clock (0.1 s until the kill). On trio's virtual clock
(``MockClock(autojump_threshold=0)``, which the resume uses) a task waiting for the store's worker
thread counts as idle, so the clock would jump ahead during the first lookup's write and the other
two would finish — and log their keys — before the kill, unrecorded: the resume would make them
again (5 lookups for 3 keys), which is the at-least-once promised for calls in flight, but not the
crash this script shows.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import trio
from _support import pick_model

from helikon_fc import (
    AgentInput,
    LlmAgent,
    Model,
    RunContext,
    RunError,
    Runner,
    RunResultStreaming,
    ToolContext,
    function_tool,
)
from helikon_fc.core import ModelRequest, ToolResult
from helikon_fc.stores import RunRecord, RunStatus, SQLiteStore
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply

RUN_ID = "monthly-report"
EFFECTS = "effects.log"


def build(folder: Path, model_args: list[str]) -> LlmAgent[None]:
    """An agent that looks up three months at once (0.1, 1 and 2 s), then sums them up."""

    @function_tool
    async def spending(ctx: ToolContext[None], month: str, seconds: float) -> int:
        """What was spent in a month.

        Args:
            month: the month, e.g. "2026-10".
            seconds: how long the lookup takes.
        """
        await trio.sleep(seconds)
        with open(folder / EFFECTS, "a") as log:  # a real tool would deduplicate on this key
            log.write(f"{ctx.run_id} {ctx.call_id}\n")
        return {"2026-09": 640, "2026-10": 702, "2026-11": 688}[month]

    def turn(request: ModelRequest) -> ScriptedTurn:
        results = [item.output for item in request.items if isinstance(item, ToolResult)]
        if not results:
            months = [("2026-09", 2.0), ("2026-10", 0.1), ("2026-11", 1.0)]
            return call_tools(*(call("spending", month=m, seconds=s).with_id(f"lookup-{m}") for m, s in months))
        return reply(f"You spent ${sum(map(int, results))} over the last three months.")

    return LlmAgent(name="report", model=_model(FunctionModel(turn), model_args), tools=[spending])


class DiesAfterWrites(SQLiteStore):
    """A SQLite store whose process kills itself with SIGKILL right after its `writes`-th record write:
    the crash, at a moment chosen in advance (as a power cut or ``kill -9`` would choose it)."""

    def __init__(self, path: Path, writes: int) -> None:
        super().__init__(path)
        self._left = writes

    async def create_run(self, run_id: str, agent: str, records: Sequence[RunRecord] = ()) -> None:
        await super().create_run(run_id, agent, records)
        self._wrote(records)

    async def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus) -> None:
        await super().append_run_records(run_id, records, status)
        self._wrote(records)

    def _wrote(self, records: Sequence[RunRecord]) -> None:
        if records:  # a status change alone is not a record write
            self._left -= 1
            if self._left == 0:
                os.kill(os.getpid(), signal.SIGKILL)


async def first_attempt(folder: Path, model_args: list[str]) -> None:
    """Start the run (in the child process, which its store kills mid-run)."""
    async with DiesAfterWrites(folder / "runs.db", writes=3) as store:
        agent, question = build(folder, model_args), AgentInput.from_user_text("Sum up my spending.")
        stream = Runner(store=store).run(agent, RunContext.ephemeral(None), question, run_id=RUN_ID)
        async with stream as events:
            async for _ in events:
                pass


async def resume(folder: Path, model_args: list[str]) -> None:
    """Continue the killed run from its records, in this (another) process."""
    async with SQLiteStore(folder / "runs.db") as store:
        before = (await store.run_summary(RUN_ID)).status
        recorded = [record.body for record in await store.read_run_records(RUN_ID) if record.kind == "tool_finished"]
        print(f"after the crash: run {before}, {len(recorded)} of 3 lookups recorded as finished")
        result = await RunResultStreaming(
            Runner(store=store).resume(RUN_ID, build(folder, model_args), RunContext.ephemeral(None))
        ).collect()
        calls = (folder / EFFECTS).read_text().splitlines()
        print(result.final_output)
        print(
            f"lookups made: {len(calls)} for {len(set(calls))} idempotency keys, model calls: {result.usage.requests}"
        )
        print(f"status: {(await store.run_summary(RUN_ID)).status}")


def main() -> None:
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        trio.run(first_attempt, Path(sys.argv[2]), sys.argv[3:])  # the real clock: see the module docstring
        return
    model_args = sys.argv[1:]
    _model(FunctionModel(lambda request: reply("")), model_args)  # a bad --model is a usage error before anything runs
    with tempfile.TemporaryDirectory() as folder:
        child = subprocess.run([sys.executable, __file__, "--child", folder, *model_args], check=False)
        if child.returncode < 0:
            print(f"first attempt killed by signal {-child.returncode}")
        try:
            trio.run(resume, Path(folder), model_args, clock=_virtual_clock())
        except RunError as exc:  # as `_support.run_example`: a failed run is one line, never a traceback
            print(f"run failed: {exc}", file=sys.stderr)
            raise SystemExit(1) from None


def _model(scripted: Model, model_args: list[str]) -> Model:
    """The scripted model, or the real one ``--model`` asks for (see ``examples/_support.py``)."""
    return pick_model(scripted, model_args)


def _virtual_clock() -> trio.abc.Clock:
    """Tool latencies in virtual time, so the example takes no real time waiting."""
    from trio.testing import MockClock

    return MockClock(autojump_threshold=0)


if __name__ == "__main__":
    main()
