"""``helikon temporal pending RUN_ID`` and ``decide RUN_ID ID=...``: a waiting run answered from a shell."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client
from tests.control.scenario import commands_run, ops

from helikon_fc.cli.commands.temporal import parse_decision
from helikon_fc.shell.control.permissions import Approve, Permissions, Reject
from helikon_fc.temporal import HelikonClient, HelikonWorker, RunHandle

from .harness import FAST
from .test_approvals import IN_PROCESS_ANSWER


def _cli(address: str, *args: str) -> str:
    command = [sys.executable, "-m", "helikon_fc", "temporal", *args, "--address", address]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


async def _waiting(handle: RunHandle, count: int) -> None:
    for _ in range(600):
        if len(await handle.pending()) == count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the run never waited")


def test_pending_lists_the_waiting_calls_and_decide_answers_them(temporal_address: str, tmp_path: Path) -> None:
    log = tmp_path / "log"

    async def main() -> tuple[str, str, str]:
        client = await Client.connect(temporal_address)
        queue = f"q-{uuid.uuid4()}"
        async with HelikonWorker(client, queue, agents=[ops(log)], heartbeat_every=0.2, permissions=Permissions()):
            handle = await HelikonClient(client, queue, policy=FAST).start("ops", "go")
            await _waiting(handle, 3)
            listed = await asyncio.to_thread(_cli, temporal_address, "pending", handle.run_id)
            replaced = json.dumps({"command": "echo hi > /tmp/motd"})
            decisions = ["cmd0=approve", "cmd2=reject:not the home directory", f"cmd3=approve:{replaced}"]
            sent = await asyncio.to_thread(_cli, temporal_address, "decide", handle.run_id, *decisions)
            return listed, sent, (await handle.result()).output

    listed, sent, output = asyncio.run(main())
    assert [line.split("\t")[:2] for line in listed.splitlines()] == [
        ["cmd0", "Bash"],
        ["cmd2", "Bash"],
        ["cmd3", "Bash"],
    ]
    assert sent.startswith("sent 3 decision(s)")
    assert output == IN_PROCESS_ANSWER
    assert sorted(commands_run(log)) == sorted(["ls -la", "rm -rf /", "echo hi > /tmp/motd"])


def test_a_decision_is_parsed_or_refused_with_what_is_allowed() -> None:
    assert parse_decision("a=approve") == ("a", Approve())
    assert parse_decision('tool:t1/a=approve:{"x": 1}') == ("tool:t1/a", Approve('{"x": 1}'))
    assert parse_decision("a=reject") == ("a", Reject())
    assert parse_decision("a=reject:too risky: really") == ("a", Reject("too risky: really"))
    for bad in ("a", "=approve", "a=maybe"):
        with pytest.raises(ValueError, match=r"expected ID=approve\[:ARGUMENTS_JSON\] or ID=reject\[:REASON\]"):
            parse_decision(bad)
