"""Against a server nobody here wrote: the PyPI ``mcp-server-git``, over stdio, on a repository the test makes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.mcp.servers import child_pids, results, run_to_end

from helikon_fc import LlmAgent, Permissions, RunCompleted, RunContext, ToolOutputItem
from helikon_fc.core import (
    ModelRequest,
    PermissionConfig,
    PermissionDenied,
    PermissionMode,
    ToolEffect,
    ToolResult,
)
from helikon_fc.mcp import MCPServerStdio, MCPTool
from helikon_fc.testing import FunctionModel, ScriptedModel, call, call_tools, reply

FIRST = "Start the ledger"
SECOND = "Record the opening balance"


def _git(repo: Path, *args: str) -> str:
    """Run ``git`` in `repo` with a fixed identity and no user or system configuration."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Tess Ter",
        "GIT_AUTHOR_EMAIL": "tess@example.org",
        "GIT_COMMITTER_NAME": "Tess Ter",
        "GIT_COMMITTER_EMAIL": "tess@example.org",
    }
    done = subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real repository: two commits, then ``ledger.txt`` modified in the working tree and left unstaged."""
    path = tmp_path / "books"
    path.mkdir()
    _git(path, "init", "--quiet", "--initial-branch=main")
    (path / "ledger.txt").write_text("opened\n")
    _git(path, "add", "ledger.txt")
    _git(path, "commit", "--quiet", "-m", FIRST)
    (path / "ledger.txt").write_text("opened\nbalance 100\n")
    _git(path, "commit", "--quiet", "-am", SECOND)
    (path / "ledger.txt").write_text("opened\nbalance 100\nbalance 250\n")
    return path


def git_server(repo: Path, **options: Any) -> MCPServerStdio:
    """The PyPI server ``mcp-server-git`` (its console script in this environment), confined to `repo`."""
    script = Path(sys.executable).with_name("mcp-server-git")
    return MCPServerStdio(str(script), ["--repository", str(repo)], **options)


async def test_the_git_server_lists_its_tools_with_checked_schemas_and_effects(repo: Path) -> None:
    """Its tools come through strictly (every schema compiled by our checker), with their annotated effects."""
    server = git_server(repo)
    async with server, server.run_tools() as tools:
        listed = {tool.name: tool for tool in tools if isinstance(tool, MCPTool)}
    expected = {"git_status", "git_log", "git_diff_unstaged", "git_show", "git_add", "git_commit", "git_reset"}
    assert expected <= set(listed), sorted(listed)
    assert listed["git_log"].parameters["required"] == ["repo_path"]
    assert "max_count" in listed["git_log"].parameters["properties"]  # type: ignore[operator]
    assert set(listed["git_commit"].parameters["required"]) == {"repo_path", "message"}  # type: ignore[arg-type]
    effects = {name: listed[name].effect for name in expected}
    assert effects == {
        "git_status": ToolEffect.READ_ONLY,
        "git_log": ToolEffect.READ_ONLY,
        "git_diff_unstaged": ToolEffect.READ_ONLY,
        "git_show": ToolEffect.READ_ONLY,
        "git_add": ToolEffect.WRITE,  # readOnlyHint false, destructiveHint false
        "git_commit": ToolEffect.WRITE,
        "git_reset": ToolEffect.SIDE_EFFECT,  # destructiveHint true
    }


async def test_a_simulated_model_reads_the_repository_through_the_server(repo: Path) -> None:
    """The model's ``git_status`` and ``git_log`` run on the real server; the next request carries their answers."""
    children = child_pids()
    seen: list[ToolResult] = []

    def turn(request: ModelRequest) -> Any:
        answers = [item for item in request.items if isinstance(item, ToolResult)]
        if not answers:
            return call_tools(call("git_status", repo_path=str(repo)), call("git_log", repo_path=str(repo)))
        seen.extend(answers)
        return reply("ledger.txt has unstaged changes")

    agent = LlmAgent(name="clerk", model=FunctionModel(turn), tools=[git_server(repo)])
    events = await run_to_end(agent, "What changed in the books?")
    assert isinstance(events[-1], RunCompleted)
    status, log = seen
    assert not status.is_error and not log.is_error
    assert "modified:   ledger.txt" in status.output and "On branch main" in status.output
    assert FIRST in log.output and SECOND in log.output
    assert log.output.index(SECOND) < log.output.index(FIRST)  # newest first, as git log has it
    assert [r.output for r in results(events)] == [status.output, log.output]
    assert child_pids() == children


async def test_plan_mode_runs_the_read_only_tools_and_denies_the_writing_ones(repo: Path) -> None:
    """Under PLAN, the readOnlyHint tools run; ``git_add`` and ``git_commit`` are denied and change nothing."""
    children = child_pids()
    head = _git(repo, "rev-parse", "HEAD")
    calls = [
        call("git_status", repo_path=str(repo)),
        call("git_add", repo_path=str(repo), files=["ledger.txt"]),
        call("git_commit", repo_path=str(repo), message="Sneak a commit"),
        call("git_log", repo_path=str(repo), max_count=1),
    ]
    model = ScriptedModel([call_tools(*calls), reply("planned")])
    agent = LlmAgent(name="planner", model=model, tools=[git_server(repo)])
    plan = RunContext.ephemeral(None).with_permissions(Permissions(config=PermissionConfig(mode=PermissionMode.PLAN)))
    events = await run_to_end(agent, "Commit the ledger", plan)
    assert isinstance(events[-1], RunCompleted)
    assert [event.tool for event in events if isinstance(event, PermissionDenied)] == ["git_add", "git_commit"]
    answered = [event.item for event in events if isinstance(event, ToolOutputItem)]
    assert [r.is_error for r in answered] == [False, True, True, False]
    assert SECOND in answered[3].output and FIRST not in answered[3].output  # max_count=1 reached the server
    assert _git(repo, "rev-parse", "HEAD") == head
    assert _git(repo, "status", "--porcelain") == " M ledger.txt\n"  # still modified, nothing staged
    assert child_pids() == children
