"""``helikon mcp serve`` and `serve_mcp`: agents served as MCP tools, checked with the mcp SDK's own client."""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import httpx2
import mcp_types as types
import pytest
import trio
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from tests.mcp.servers import results, run_to_end, wait_for

from helikon_fc import LlmAgent, RunCompleted
from helikon_fc.cli import main
from helikon_fc.mcp import MCPServerStdio, serve_mcp
from helikon_fc.testing import ScriptedModel, call, call_tools, reply
from mcp import ClientSession

ROOT = Path(__file__).parents[2]
AGENTS = "tests/mcp/served_agents.py"
TRIAGE = "examples/triage_handoff.py:triage"


def _environment(markers: Path | None = None) -> dict[str, str]:
    """This process's environment (its ``PYTHONPATH`` finds this checkout's helikon_fc), with the markers folder."""
    env = dict(os.environ)
    if markers is not None:
        env["HELIKON_TEST_MARKERS"] = str(markers)
    return env


@asynccontextmanager
async def served(target: str, *options: str, markers: Path | None = None) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session with a ``helikon mcp serve TARGET`` subprocess over stdio."""
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "helikon_fc", "mcp", "serve", target, *options],
        env=_environment(markers),
        cwd=ROOT,
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            with trio.fail_after(60):
                await session.initialize()
            yield session


def _text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_the_agent_is_one_tool_named_after_it_with_one_input_string() -> None:
    """``tools/list`` shows the agent as one tool: its name, its instructions' first line, one ``input`` string."""
    async with served(TRIAGE) as session:
        (tool,) = (await session.list_tools()).tools
    assert tool.name == "triage"
    assert tool.description is not None and tool.description.startswith("Classify the user's personal-finance")
    assert tool.input_schema == {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}
    assert tool.output_schema is None


async def test_a_call_runs_the_agent_and_answers_with_its_final_output() -> None:
    """``tools/call`` runs the agent (here a handoff to a specialist) and returns its last answer as text."""
    async with served(TRIAGE) as session:
        result = await session.call_tool("triage", {"input": "How should I start investing?"})
    assert not result.is_error
    assert _text(result).startswith("First keep three months of expenses as an emergency fund.")


async def test_a_structured_output_agent_answers_with_structured_content_and_declares_its_schema() -> None:
    """An agent with ``output_type`` declares its schema as ``outputSchema`` and answers ``structuredContent``."""
    async with served(f"{AGENTS}:budget") as session:
        (tool,) = (await session.list_tools()).tools
        result = await session.call_tool("budget", {"input": "dining?"})
    assert tool.description == "Say what is left of a budget category."
    assert tool.output_schema is not None and tool.output_schema["required"] == ["category", "remaining"]
    assert not result.is_error
    assert result.structured_content == {"category": "dining", "remaining": 88}


async def test_a_failed_run_answers_is_error_with_the_reason_in_words() -> None:
    """A run that fails is a tool result with ``isError: true`` saying why, not a protocol error."""
    async with served(f"{AGENTS}:broken") as session:
        result = await session.call_tool("broken", {"input": "hello"})
    assert result.is_error
    assert "the agent 'broken' failed" in _text(result) and "'empty-script' has no turn" in _text(result)


async def test_bad_arguments_and_an_unknown_tool_answer_is_error() -> None:
    """A missing ``input`` or another tool's name is an ``isError`` result naming what was wrong."""
    async with served(TRIAGE) as session:
        missing = await session.call_tool("triage", {})
        other = await session.call_tool("nope", {"input": "x"})
    assert missing.is_error and "the argument 'input' must be a string" in _text(missing)
    assert other.is_error and "no tool named 'nope'" in _text(other)


async def test_the_name_and_description_options_rename_the_tool() -> None:
    """``--name`` and ``--description`` replace the agent's own."""
    async with served(TRIAGE, "--name", "advisor", "--description", "Personal finance advice.") as session:
        (tool,) = (await session.list_tools()).tools
        result = await session.call_tool("advisor", {"input": "How should I start investing?"})
    assert (tool.name, tool.description) == ("advisor", "Personal finance advice.")
    assert not result.is_error


async def test_the_clients_cancel_cancels_the_run(tmp_path: Path) -> None:
    """Cancelling the call sends ``notifications/cancelled``: the run's running tool is cancelled."""
    async with served(f"{AGENTS}:blocking", markers=tmp_path) as session:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session.call_tool, "blocking", {"input": "go"})
            await wait_for(tmp_path / "blocking", 30)
            nursery.cancel_scope.cancel()
        await wait_for(tmp_path / "cancelled", 30)
        result = await session.call_tool("nope", {"input": "x"})  # the server still answers
    assert result.is_error


async def test_each_event_is_a_progress_notification_when_the_client_asks() -> None:
    """With a progress callback (a progress token), every event of the run arrives as a progress notification."""
    seen: list[tuple[float, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))
        await trio.lowlevel.checkpoint()

    async with served(TRIAGE) as session:
        result = await session.call_tool("triage", {"input": "invest?"}, progress_callback=progress)
    assert not result.is_error
    assert [value for value, _ in seen] == [float(n) for n in range(1, len(seen) + 1)]
    assert seen[0][1] == "RunStarted" and seen[-1][1] == "RunCompleted"


async def test_a_store_records_each_call_as_a_run(tmp_path: Path) -> None:
    """With ``--store``, each call is a run recorded in the store (``helikon runs list`` shows it)."""
    store = tmp_path / "runs.db"
    async with served(TRIAGE, "--store", str(store)) as session:
        result = await session.call_tool("triage", {"input": "invest?"})
    assert not result.is_error
    listing = await trio.run_process(
        [sys.executable, "-m", "helikon_fc", "runs", "list", "--store", str(store), "--json"],
        capture_stdout=True,
        env=_environment(),
    )
    runs = [json.loads(line) for line in listing.stdout.decode().splitlines()]
    assert [(run["agent"], run["status"]) for run in runs if "/" not in run["run_id"]] == [("triage", "completed")]


async def test_our_own_client_uses_a_served_agent_as_a_tool_source() -> None:
    """Round trip: ``MCPServerStdio("helikon", ["mcp", "serve", ...])`` gives another agent the served agent."""
    server = MCPServerStdio(
        sys.executable, ["-m", "helikon_fc", "mcp", "serve", TRIAGE], env=_environment(), cwd=ROOT, init_timeout=60
    )
    model = ScriptedModel([call_tools(call("triage", input="How should I start investing?")), reply("noted")])
    events = await run_to_end(LlmAgent(name="outer", model=model, tools=[server]), "ask the advisor")
    assert isinstance(events[-1], RunCompleted)
    ((output, is_error),) = [(r.output, r.is_error) for r in results(events)]
    assert not is_error and str(output).startswith("First keep three months")


async def test_a_served_agent_answers_over_streamable_http_in_process() -> None:
    """``nursery.start(serve_mcp, ..., transport="http", port=0)`` gives the URL; the SDK's HTTP client is answered."""
    agent = LlmAgent(name="helper", model=ScriptedModel([reply("hello over HTTP")]), description="Says hello.")
    async with trio.open_nursery() as nursery:
        url = await nursery.start(partial(serve_mcp, agent, transport="http", port=0))
        assert isinstance(url, str) and url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        async with httpx2.AsyncClient() as client, streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                (tool,) = (await session.list_tools()).tools
                result = await session.call_tool("helper", {"input": "hi"})
        nursery.cancel_scope.cancel()
    assert (tool.name, tool.description) == ("helper", "Says hello.")
    assert _text(result) == "hello over HTTP"


async def test_a_port_in_use_exits_1_saying_so() -> None:
    """``--http`` on a port something else listens on: status 1 and one line naming the failure."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "helikon_fc", "mcp", "serve", TRIAGE, "--http", f"127.0.0.1:{port}"]
        with trio.fail_after(60):
            done = await trio.run_process(command, check=False, capture_stderr=True, env=_environment(), cwd=ROOT)
    assert done.returncode == 1
    assert "helikon mcp: the server could not run:" in done.stderr.decode() and "in use" in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"transport": "smoke"}, "serve_mcp: transport must be 'stdio' or 'http', got 'smoke' (str)"),
        ({"port": 70000}, "serve_mcp: port must be a port number from 0 to 65535, got 70000 (int)"),
        (
            {"name": "two words"},
            "serve_mcp: name must be 1 to 128 letters, digits, '_', '-' or '.', got 'two words' (str)",
        ),
    ],
)
async def test_bad_arguments_are_refused_naming_them(options: dict[str, object], error: str) -> None:
    """A wrong transport, port or name is refused before anything is served."""
    agent = LlmAgent(name="a", model=ScriptedModel([]))
    with pytest.raises((TypeError, ValueError)) as info:
        await serve_mcp(agent, **options)  # type: ignore[arg-type]
    assert str(info.value) == error


async def test_something_not_an_agent_is_refused() -> None:
    """`serve_mcp` of a non-agent says what it got."""
    with pytest.raises(TypeError, match=r"serve_mcp: agent must be an agent .*, got 'triage' \(str\)"):
        await serve_mcp("triage")  # type: ignore[arg-type]


def test_helikon_lists_the_mcp_command_and_mcp_serve_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    """``helikon --help`` lists ``mcp``; ``helikon mcp serve --help`` explains the target and ``--http``."""
    for args in ([], ["mcp"], ["mcp", "serve"]):
        with pytest.raises(SystemExit) as info:
            main([*args, "--help"])
        assert info.value.code == 0
        text = capsys.readouterr().out
        assert {0: "mcp ", 1: "serve", 2: "--http HOST:PORT"}[len(args)] in text


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["mcp", "serve", "no_such_module:agent"], "cannot import no_such_module"),
        (["mcp", "serve", TRIAGE, "--http", "localhost"], "--http: must be HOST:PORT (such as 127.0.0.1:8000)"),
        (["mcp", "serve", TRIAGE, "--http", "127.0.0.1:99999"], "got '127.0.0.1:99999'"),
    ],
)
def test_bad_arguments_exit_2_with_the_reason(
    args: list[str], reason: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A target that does not load or a malformed ``--http`` exits 2 with ``mcp serve``'s usage and the reason."""
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    error = capsys.readouterr().err
    assert "usage: helikon mcp serve" in error and reason in error


def test_mcp_without_an_action_prints_its_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """``helikon mcp`` alone shows what it can do, with the status of bad arguments."""
    assert main(["mcp"]) == 2
    assert "serve" in capsys.readouterr().out
