"""Helpers of the MCP tests: the fault server as an `MCPServerStdio`, whole runs, process and task checks."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import trio

from helikon_fc import AgentEvent, LlmAgent, RunContext, RunFailed, ToolOutputItem
from helikon_fc.core import OtherError, ToolResult
from helikon_fc.mcp import MCPServerStdio

FAULT_SERVER = Path(__file__).with_name("fault_server.py")


def fault_server(mode: str, markers: Path, **options: Any) -> MCPServerStdio:
    """The fault server in `mode` (``serve``, ``exit``, ``hang``), writing its pid and markers into `markers`."""
    return MCPServerStdio(sys.executable, [str(FAULT_SERVER), mode, str(markers)], **options)


def time_server(**options: Any) -> MCPServerStdio:
    """The PyPI server ``mcp-server-time``, in UTC, started from this interpreter's environment."""
    script = Path(sys.executable).with_name("mcp-server-time")
    return MCPServerStdio(str(script), ["--local-timezone", "UTC"], **options)


async def run_to_end(agent: LlmAgent[None], text: str, ctx: RunContext[None] | None = None) -> list[AgentEvent]:
    """Every event of one run of `agent` on `text`, the terminal one last."""
    async with agent.run(ctx or RunContext.ephemeral(None), text) as events:
        return [event async for event in events]


def results(events: list[AgentEvent]) -> list[ToolResult]:
    """The tool results among `events`."""
    return [event.item for event in events if isinstance(event, ToolOutputItem)]


def failure(events: list[AgentEvent]) -> str:
    """The message of the run's `RunFailed(OtherError)` terminal event (an assertion error if it ended otherwise)."""
    last = events[-1]
    assert isinstance(last, RunFailed) and isinstance(last.error, OtherError), last
    return last.error.message


def pid_in(markers: Path) -> int:
    """The pid the fault server wrote when it started."""
    return int((markers / "pid").read_text())


def process_gone(pid: int) -> bool:
    """Whether no process `pid` exists any more (it exited and was reaped, not left as a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def child_pids() -> set[int]:
    """The pids of this process's children (from ``/proc``), zombies included."""
    found: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == os.getpid():
            found.add(int(stat.parent.name))
    return found


def live_tasks() -> set[trio.lowlevel.Task]:
    """Every task of the current trio run."""
    found: set[trio.lowlevel.Task] = set()
    pending = [trio.lowlevel.current_root_task()]
    while pending:
        task = pending.pop()
        if task is None:
            continue
        found.add(task)
        pending.extend(child for nursery in task.child_nurseries for child in nursery.child_tasks)
    return found


async def wait_for(path: Path, seconds: float = 10.0) -> None:
    """Wait (in real time) until `path` exists."""
    with trio.fail_after(seconds):
        while not path.exists():
            await trio.sleep(0.01)


async def read_port(path: Path, seconds: float = 30.0) -> int:
    """The port a server process writes to `path` as one line (``PORT\\n``), once the whole line is there.

    The file exists from the moment the writer opens it, before its text is written: a reader that takes
    the file's existence for the port read an empty port now and then on a loaded machine.
    """
    with trio.fail_after(seconds):
        while not (text := path.read_text() if path.exists() else "").endswith("\n"):
            await trio.sleep(0.01)
    return int(text)
