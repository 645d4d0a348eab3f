"""A run that used MCP tools, killed with SIGKILL mid-run and resumed in a new process: it offers the
tools it was offered when it started, and a tool the server changed meanwhile is reported, not swapped."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.mcp.durable_child import RUN_ID
from tests.mcp.servers import pid_in, process_gone

from helikon_fc.stores import SQLiteStore

AFTER = 4
"""The record write the run is killed after: the first ``echo`` call's result and the second call's
boundary are stored; the second call has not run."""


def _child(op: str, folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tests.mcp.durable_child", op, str(folder / "runs.db"), str(folder), *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _crash(folder: Path) -> None:
    """Run the agent until it is killed after write `AFTER`; check the server it started is gone too."""
    crashed = _child("crash", folder, str(AFTER))
    assert crashed.returncode == -9, crashed.stderr
    assert '"output":"one"' in crashed.stdout and '"call_1_0"' in crashed.stdout  # the first call ran, not the second
    pid, deadline = pid_in(folder), time.monotonic() + 10
    while not process_gone(pid) and time.monotonic() < deadline:  # its stdin closed with the killed run
        time.sleep(0.05)
    assert process_gone(pid)


def _resume(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The resumed run's events and the tools its model was last offered."""
    resumed = _child("resume", folder)
    assert resumed.returncode == 0, resumed.stderr
    lines = resumed.stdout.splitlines()
    offered = json.loads(lines[-1].removeprefix("OFFERED "))
    return [json.loads(line) for line in lines[:-1]], offered


def _results(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["item"]["call_id"]: e["item"] for e in events if e["type"] == "tool_output_item"}


async def _records(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    async with SQLiteStore(str(folder / "runs.db")) as store:
        return [(record.kind, json.loads(record.body)) for record in await store.read_run_records(RUN_ID)]


async def test_a_killed_run_resumes_offering_the_tools_it_was_offered(tmp_path: Path) -> None:
    """The listed tools are the run's second record; the resumed run offers them and its pending call runs."""
    _crash(tmp_path)
    records = await _records(tmp_path)
    assert [kind for kind, _ in records[:2]] == ["run_opened", "tools_offered"]
    echo = next(tool for tool in records[1][1]["tools"] if tool["name"] == "echo")
    assert echo["effect"] == "read_only" and echo["parameters"]["properties"] == {"text": {"type": "string"}}
    assert "fault_server.py serve" in echo["source"]
    events, offered = _resume(tmp_path)
    assert events[-1]["type"] == "run_completed"
    second = _results(events)["call_1_0"]
    assert second["output"] == "two" and not second["is_error"]
    assert [tool["name"] for tool in offered] == [tool["name"] for tool in records[1][1]["tools"]]


@pytest.mark.parametrize(
    ("variant", "reported"),
    [("changed", "now offers it with another input schema"), ("missing", "no longer offers it")],
)
async def test_a_tool_the_server_changed_before_the_resume_is_reported_not_swapped(
    tmp_path: Path, variant: str, reported: str
) -> None:
    """The model is offered the tool as recorded; its call is a tool error naming the tool and what changed."""
    _crash(tmp_path)
    recorded = (await _records(tmp_path))[1][1]["tools"]
    (tmp_path / "variant").write_text(variant)  # the server the resumed run starts is a new release
    events, offered = _resume(tmp_path)
    second = _results(events)["call_1_0"]
    assert events[-1]["type"] == "run_completed" and second["is_error"]
    assert second["output"].startswith("tool 'echo' changed since this run started: MCP server ")
    assert reported in second["output"] and "it was not called" in second["output"]
    as_recorded = {tool["name"]: tool["parameters"] for tool in recorded}
    assert {tool["name"]: tool["parameters"] for tool in offered} == as_recorded


def test_same_tools_keeps_an_unchanged_tool_and_names_each_change_of_another() -> None:
    """Unchanged: the live tool itself; changed: a stale stand-in naming every difference, offered as recorded."""
    from helikon_fc.core import ToolEffect
    from helikon_fc.shell.tools.offered_tools import StaleTool, offered, same_tools

    live = _Listed("echo", "Echo the text.", {"type": "object"}, ToolEffect.READ_ONLY)
    recorded = offered(["S"], [(live, "S")])
    assert same_tools(recorded, [(live, "S")]) == (live,)
    louder = _Listed("echo", "Echo it louder.", {"type": "object"}, ToolEffect.SIDE_EFFECT)
    (stale,) = same_tools(recorded, [(louder, "S")])
    assert isinstance(stale, StaleTool) and stale.description == "Echo the text."
    assert stale.effect is ToolEffect.READ_ONLY
    assert stale.why == "S now offers it with another description and effect (side_effect, not read_only)"


class _Listed:
    """A listed tool as a source gives it (only what the record keeps)."""

    def __init__(self, name: str, description: str, parameters: dict[str, Any], effect: Any) -> None:
        self.name, self.description, self.parameters, self.effect = name, description, parameters, effect

    async def invoke(self, ctx: Any, arguments: Any) -> Any:
        raise AssertionError("not called")
