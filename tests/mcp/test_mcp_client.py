"""MCP servers as tool sources: tools listed per run, offered as ordinary tools, results the model reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from tests.mcp.servers import failure, fault_server, pid_in, process_gone, results, run_to_end

from helikon_fc import LlmAgent, Permissions, RunCompleted, RunContext
from helikon_fc.core import PermissionConfig, PermissionDenied, PermissionMode, ToolEffect
from helikon_fc.mcp import MCPServerError, MCPServerStdio, MCPTool
from helikon_fc.shell.control.hooks import Deny, HookPoint, PreToolUse
from helikon_fc.shell.tools.function_tool import function_tool
from helikon_fc.shell.tools.tool import Tool
from helikon_fc.testing import ScriptedCall, ScriptedModel, call, call_tools, reply


def _agent(tools: list[Tool[None] | MCPServerStdio], *turns: list[ScriptedCall]) -> LlmAgent[None]:
    model = ScriptedModel([*(call_tools(*calls) for calls in turns), reply("done")])
    return LlmAgent(name="a", model=model, tools=tools)


@function_tool
def echo(text: str) -> str:
    """A function tool whose name clashes with the fault server's."""
    return text


async def test_a_run_opens_the_server_calls_its_tool_and_stops_it(tmp_path: Path) -> None:
    """Outside ``async with``, the run starts the server, the model's call reaches it, and the run stops it."""
    agent = _agent([fault_server("serve", tmp_path)], [call("echo", text="hello")])
    events = await run_to_end(agent, "go")
    assert isinstance(events[-1], RunCompleted)
    assert [(r.output, r.is_error) for r in results(events)] == [("hello", False)]
    assert process_gone(pid_in(tmp_path))


async def test_one_open_server_serves_many_runs_and_list_changed_refreshes_the_tools(tmp_path: Path) -> None:
    """Inside ``async with server:`` runs share one process; results are rendered; a list change is seen next run."""
    server = fault_server("serve", tmp_path)
    first = _agent([server], [call("data"), call("media"), call("fail"), call("grow")])
    second = _agent([server], [call("extra")])
    async with server:
        pid = pid_in(tmp_path)
        data, media, fail, grow = results(await run_to_end(first, "go"))
        (extra,) = results(await run_to_end(second, "go"))
        assert pid_in(tmp_path) == pid and not process_gone(pid)
    assert process_gone(pid)
    assert json.loads(data.output) == {"a": 1, "b": [2, 3]} and not data.is_error
    assert media.output.splitlines() == [
        "see attached",
        "[image image/png, 2 bytes not shown]",  # "aGk=" is "hi"
        "[audio audio/wav, 2 bytes not shown]",
        "[resource file:///notes.txt (text/plain)]",
        "a note",
        "[resource file:///x.bin (application/x), 2 bytes not shown]",
        "[resource link big.csv file:///big.csv (text/csv)]",
    ]
    assert (fail.output, fail.is_error) == ("disk is full", True)
    assert (grow.output, extra.output, extra.is_error) == ("grown", "extra", False)


async def test_a_name_clash_is_refused_at_start_naming_both_and_a_prefix_avoids_it(tmp_path: Path) -> None:
    """Two servers (or a server and a function tool) offering one name fail the run before any model call."""
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
    a, c = fault_server("serve", tmp_path / "a"), fault_server("serve", tmp_path / "c")
    prefixed = fault_server("serve", tmp_path / "b", prefix="b_")
    async with a, prefixed, c:
        two_servers = await run_to_end(_agent([a, c]), "go")
        with_function = await run_to_end(_agent([echo, a]), "go")
        both = _agent([a, prefixed], [call("echo", text="from a"), call("b_echo", text="from b")])
        answered = results(await run_to_end(both, "go"))
    for events, first in ((two_servers, a.source_name), (with_function, "tool 'echo'")):
        message = failure(events)
        assert "'echo' is offered twice" in message and first in message and "prefix=" in message
    assert c.source_name in failure(two_servers) and a.source_name in failure(with_function)
    assert [r.output for r in answered] == ["from a", "from b"]


async def test_a_refused_schema_names_server_and_tool_and_lenient_mode_accepts_it(tmp_path: Path) -> None:
    """A schema the checker refuses fails the run naming server and tool; ``lenient_schemas`` passes it unchecked."""
    (tmp_path / "strict").mkdir()
    (tmp_path / "lenient").mkdir()
    strict = fault_server("sloppy", tmp_path / "strict")
    refused = failure(await run_to_end(_agent([strict]), "go"))
    assert strict.source_name in refused and "its tool 'bad_schema' is refused" in refused
    lenient = fault_server("sloppy", tmp_path / "lenient", lenient_schemas=True)
    answered = results(await run_to_end(_agent([lenient], [call("bad_schema", n="not a number")]), "go"))
    assert [(r.output, r.is_error) for r in answered] == [("got {'n': 'not a number'}", False)]
    assert process_gone(pid_in(tmp_path / "strict")) and process_gone(pid_in(tmp_path / "lenient"))


async def test_annotations_set_the_effect_so_plan_mode_runs_only_read_only_tools(tmp_path: Path) -> None:
    """``readOnlyHint`` runs under PLAN; ``destructiveHint`` and unannotated tools are denied; `effects` overrides."""
    server = fault_server("serve", tmp_path, effects={"media": ToolEffect.READ_ONLY, "echo": "side_effect"})
    plan = RunContext.ephemeral(None).with_permissions(Permissions(config=PermissionConfig(mode=PermissionMode.PLAN)))
    agent = _agent([server], [call("data"), call("fail"), call("media"), call("echo", text="x")])
    async with server:
        async with server.run_tools() as tools:
            effects = {tool.name: tool.effect for tool in tools if isinstance(tool, MCPTool)}
        events = await run_to_end(agent, "go", plan)
    assert effects["data"] is ToolEffect.READ_ONLY and effects["fail"] is ToolEffect.SIDE_EFFECT
    assert effects["block"] is ToolEffect.SIDE_EFFECT and effects["media"] is ToolEffect.READ_ONLY
    assert effects["echo"] is ToolEffect.SIDE_EFFECT
    assert [event.tool for event in events if isinstance(event, PermissionDenied)] == ["fail", "echo"]
    assert [r.is_error for r in results(events)] == [False, True, False, True]


async def test_effects_naming_a_tool_the_server_lacks_is_refused(tmp_path: Path) -> None:
    """A typo in ``effects=`` is an error naming the key and the tools the server has, not a silent no-op."""
    server = fault_server("serve", tmp_path, effects={"ecko": ToolEffect.READ_ONLY})
    with trio.fail_after(60):
        try:
            async with server:
                async with server.run_tools():
                    raise AssertionError("listed")
        except MCPServerError as exc:
            assert "effects= names 'ecko'" in str(exc) and "'echo'" in str(exc)
        else:
            raise AssertionError("not refused")
    assert process_gone(pid_in(tmp_path))


def test_bad_arguments_are_refused_naming_them() -> None:
    """Constructor arguments of the wrong kind raise with the argument, what it got and what is allowed."""
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: MCPServerStdio(""), "command must be a non-empty string"),
        (lambda: MCPServerStdio("x", "a b"), "args must be a sequence of strings"),
        (lambda: MCPServerStdio("x", init_timeout=0), "init_timeout must be a positive number"),
        (lambda: MCPServerStdio("x", effects={"t": "sometimes"}), "effects['t'] must be a mapping"),
    ]
    for build, expected in cases:
        try:
            build()
        except (TypeError, ValueError) as exc:
            assert expected in str(exc) and str(exc).startswith("MCPServerStdio: ")
        else:
            raise AssertionError(expected)


async def test_hooks_see_mcp_calls_by_tool_name(tmp_path: Path) -> None:
    """A ``PreToolUse`` hook refusing ``echo`` by name blocks the MCP call; the other MCP call runs."""

    async def no_echo(ctx: RunContext[None], point: HookPoint) -> Deny | None:
        await trio.lowlevel.checkpoint()
        return Deny("not echo") if isinstance(point, PreToolUse) and point.call.name == "echo" else None

    agent = _agent([fault_server("serve", tmp_path)], [call("echo", text="x"), call("data")]).with_hooks(no_echo)
    echoed, data = results(await run_to_end(agent, "go"))
    assert (echoed.output, echoed.is_error) == ("blocked by PreToolUse hook: not echo", True)
    assert json.loads(data.output) == {"a": 1, "b": [2, 3]}


async def test_an_error_in_the_block_comes_out_as_itself_and_the_server_opens_once(tmp_path: Path) -> None:
    """The SDK's nurseries would wrap a block's error in exception groups; it comes out unwrapped, the server
    stopped. A server open already refuses a second ``async with``."""
    server = fault_server("serve", tmp_path)
    with pytest.raises(KeyError, match="mine"):
        async with server:
            with pytest.raises(RuntimeError, match="is open already"):
                async with server:
                    raise AssertionError("opened twice")
            raise KeyError("mine")
    assert process_gone(pid_in(tmp_path))


def test_importing_the_package_without_the_sdk_says_what_to_install(tmp_path: Path) -> None:
    """Where the ``mcp`` package is missing, ``import helikon_fc.mcp`` is an ImportError naming the extra."""
    hidden = tmp_path / "mcp"
    hidden.mkdir()  # first on the path, it stands for a missing package
    (hidden / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n")
    source = Path((MCPTool.__module__ and sys.modules["helikon_fc"].__file__) or "").parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(source)])}
    code = "import helikon_fc.mcp"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "ImportError: helikon_fc.mcp needs the mcp package" in done.stderr
    assert "pip install 'helikon_fc[mcp]'" in done.stderr
