"""``helikon temporal pending|decide`` exit cleanly every time, and an unknown run is one line, not a traceback."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid

import pytest
from temporalio.client import Client

from helikon_fc.shell.durable.storage import RunNotFound
from helikon_fc.temporal import HelikonClient

TIMES = 10
"""How often each command runs: the teardown crash it guards against struck about one run in three."""


def _cli(address: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "helikon_fc", "temporal", *args, "--address", address]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_pending_and_decide_exit_0_every_time(temporal_address: str) -> None:
    """A short-lived client process answers and exits 0 every time (temporalio's teardown crash is skipped)."""
    run_id = f"idle-{uuid.uuid4()}"

    async def start() -> None:  # a workflow no worker runs: its signals are accepted, its queries would wait
        client = await Client.connect(temporal_address)
        await client.start_workflow("Idle", id=run_id, task_queue=f"q-{uuid.uuid4()}")

    asyncio.run(start())
    for _ in range(TIMES):
        done = _cli(temporal_address, "decide", run_id, "c1=approve")
        assert (done.returncode, done.stdout, done.stderr) == (0, f"sent 1 decision(s) to {run_id}\n", "")


@pytest.mark.parametrize("verb", [["pending"], ["decide", "c1=approve"]])
def test_an_unknown_run_is_one_line_and_exit_1(temporal_address: str, verb: list[str]) -> None:
    """An unknown run id prints one line naming it and exits 1, with no traceback."""
    for _ in range(2):
        done = _cli(temporal_address, verb[0], "no-such-run", *verb[1:])
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        assert done.stderr.splitlines() == [f"helikon temporal: no run 'no-such-run' on Temporal at {temporal_address}"]


def test_an_unreachable_server_is_one_line_and_exit_1() -> None:
    """No Temporal at the address: one line saying so, exit 1."""
    done = _cli("127.0.0.1:1", "pending", "some-run")
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("helikon temporal: cannot reach Temporal at 127.0.0.1:1: ")
    assert len(done.stderr.splitlines()) == 1


def test_the_client_raises_run_not_found_naming_the_id(temporal_address: str) -> None:
    """`RunHandle.pending`, `decide`, `cancel`, `result` and `events` on an unknown id raise `RunNotFound` naming it."""

    async def main() -> None:
        client = await Client.connect(temporal_address)
        handle = HelikonClient(client, "q").handle("no-such-run")
        for call in (handle.pending, lambda: handle.decide({}), handle.cancel, handle.result):
            with pytest.raises(RunNotFound, match="'no-such-run'"):
                await call()
        with pytest.raises(RunNotFound, match="'no-such-run'"):
            await anext(aiter(handle.events()))

    asyncio.run(main())
