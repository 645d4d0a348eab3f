"""A worker killed (SIGKILL) in the middle of a tool round, and another started: the run finishes the same."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from helikon_fc.core import RunCompleted
from helikon_fc.temporal import HelikonClient

from .crash_agents import agent
from .harness import FAST, replay, trio_events, without_deltas

ROOT = Path(__file__).resolve().parents[2]


def _worker(address: str, queue: str, effects: Path, go: Path | None = None) -> subprocess.Popen[bytes]:
    """``helikon temporal worker`` in a process of its own, polling once `go` exists (at once if `None`)."""
    env = dict(os.environ, HELIKON_EFFECTS=str(effects), PYTHONPATH=f"{ROOT / 'src'}{os.pathsep}{ROOT}")
    if go is not None:
        env["HELIKON_WORKER_GO"] = str(go)
    command = [sys.executable, "-m", "tests.temporal.crash_worker", "temporal", "worker"]
    command += ["--agents", "tests.temporal.crash_agents:agent"]
    command += ["--address", address, "--task-queue", queue, "--sticky-timeout", "0.5"]
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _lines(effects: Path) -> list[str]:
    return effects.read_text().splitlines() if effects.exists() else []


def _wait_for(effects: Path, wanted: set[str]) -> None:
    deadline = time.monotonic() + 60
    while not wanted <= set(_lines(effects)):
        assert time.monotonic() < deadline, f"the effects file never showed {wanted}: {_lines(effects)}"
        time.sleep(0.05)


async def _until_completed(client: Client, workflow_id: str, count: int) -> None:
    """Wait until the server has recorded `count` finished activities of the run (a tool's effect line is
    written before its worker reports the result: a kill in between runs that call again, at-least-once)."""
    deadline = time.monotonic() + 60
    while True:
        history = await client.get_workflow_handle(workflow_id).fetch_history()
        completed = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED]
        if len(completed) >= count:
            return
        assert time.monotonic() < deadline, f"the server recorded {len(completed)} finished activities, not {count}"
        await asyncio.sleep(0.05)


TRIALS = int(os.environ.get("HELIKON_FC_TEMPORAL_CRASH_TRIALS", "5"))
"""Kills per test run: each trial is a fresh run, a worker SIGKILLed mid-round and a second one (a few seconds each)."""


@pytest.mark.parametrize("trial", range(TRIALS))
def test_a_killed_worker_mid_round_is_replaced_and_nothing_finished_runs_again(
    temporal_address: str, tmp_path: Path, trial: int
) -> None:
    effects = tmp_path / "effects.log"
    queue = f"crash-{uuid.uuid4()}"

    async def main() -> None:
        client = await Client.connect(temporal_address)
        handle = await HelikonClient(client, queue, policy=FAST).start("crashy", "do three things")
        second = _worker(temporal_address, queue, effects, go=tmp_path / "second.go")
        first = _worker(temporal_address, queue, effects)
        try:
            await asyncio.to_thread(_wait_for, effects, {"done a", "done b", "start c"})
            await _until_completed(client, handle.run_id, 3)  # the model call, a and b: recorded before the kill
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait()
        (tmp_path / "effects.go").touch()
        (tmp_path / "second.go").touch()
        try:
            result = await handle.result()
            events = [event async for event in handle.events()]
            await replay(client, [handle.run_id])
        finally:
            second.terminate()
            second.wait()
        os.environ["HELIKON_EFFECTS"] = str(tmp_path / "baseline.log")
        (tmp_path / "baseline.go").touch()
        assert without_deltas(events) == trio_events(agent, "do three things")
        assert isinstance(result.terminal, RunCompleted)
        assert result.output == "finished: did a, did b, did c slowly"
        assert result.usage.input_tokens == 20 and result.usage.requests == 2
        lines = _lines(effects)
        # The finished calls ran once; only the call the kill interrupted ran again (at-least-once).
        assert lines.count("done a") == 1 and lines.count("done b") == 1
        assert lines.count("start c") == 2 and lines.count("done c") == 1

    asyncio.run(main())
