"""Pause, let the process exit, resume in a new process with decisions: the answer of an in-process approval."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import trio
from tests.control.scenario import AGENTS, DECISIONS, Answers, commands_run, context, scoped

from helikon_fc import AgentInput, RunResultStreaming
from helikon_fc.shell.control.permissions import Approve, Permissions, Reject

ROOT = Path(__file__).resolve().parents[2]
PREFIX = {"ops": "", "lead": "tool:ask-ops/", "graph": "clean/"}


def _as_json(decisions: dict[str, Approve | Reject]) -> str:
    out: dict[str, dict[str, str | bool | None]] = {}
    for call_id, decision in decisions.items():
        match decision:
            case Approve(arguments=arguments):
                out[call_id] = {"approve": True, "arguments": arguments}
            case Reject(reason=reason):
                out[call_id] = {"reject": reason}
    return json.dumps(out)


async def _child(*args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = await trio.run_process(
        [sys.executable, "-m", "tests.control.approval_child", *args],
        cwd=ROOT,
        env=env,
        capture_stdout=True,
        capture_stderr=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, object] = json.loads(done.stdout.decode().splitlines()[-1])
    return result


async def _in_process(agent: str, log: Path) -> str:
    """The same agent, answered in-process by a handler with the same decisions."""
    handler = Answers(DECISIONS)
    run = AGENTS[agent](log).run(context(Permissions(approval_handler=handler)), AgentInput.from_user_text("go"))
    return (await RunResultStreaming(run).collect()).final_output


@pytest.mark.parametrize("agent", ["ops", "lead", "graph"])
async def test_a_paused_run_resumed_in_another_process_ends_as_an_in_process_approval(
    agent: str, tmp_path: Path
) -> None:
    """Process 1 pauses and exits; process 2 resumes with two of three decisions and pauses again; process 3
    gives the last and completes, with the in-process answer, every approved call run once and the rejected never."""
    db, log = str(tmp_path / "runs.db"), str(tmp_path / "calls.log")
    prefix = PREFIX[agent]
    first = await _child("start", db, agent, log)
    assert first["paused"] is True and first["status"] == "paused"
    assert first["pending"] == [f"{prefix}cmd0", f"{prefix}cmd2", f"{prefix}cmd3"]
    two = {key: DECISIONS[key] for key in ("cmd0", "cmd2")}
    second = await _child("resume", db, agent, log, _as_json(scoped(prefix, two)))
    assert second["paused"] is True and second["pending"] == [f"{prefix}cmd3"]
    third = await _child("resume", db, agent, log, _as_json(scoped(prefix, {"cmd3": DECISIONS["cmd3"]})))
    assert third["paused"] is False and third["status"] == "completed"
    assert third["final"] == await _in_process(agent, tmp_path / "in-process.log")
    assert sorted(commands_run(Path(log))) == sorted(commands_run(tmp_path / "in-process.log"))
    assert "rm -rf ~" not in commands_run(Path(log))
