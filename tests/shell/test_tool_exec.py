"""`execute_tool_call`: every way a tool call can go wrong becomes an error result; cancellation still propagates."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable

import attrs
import pytest
import trio
import trio.testing

from helikon_fc.core import JsonObject, ToolCall, ToolResult
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.tools.function_tool import function_tool
from helikon_fc.shell.tools.tool import Tool, ToolContext, ToolError, ToolOutput
from helikon_fc.shell.tools.tool_exec import execute_tool_call

Behaviour = Callable[[ToolContext[str], JsonObject], Awaitable[ToolOutput]]

NUMBER_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "required": ["n"],
    "additionalProperties": False,
}


@attrs.define
class HandTool:
    """A hand-written tool whose `invoke` runs `behaviour` and records the context it got."""

    behaviour: Behaviour
    name: str = "hand"
    description: str = "A hand-written tool."
    parameters: JsonObject = attrs.field(factory=lambda: dict(NUMBER_SCHEMA))
    timeout: float | None = None
    seen: list[ToolContext[str]] = attrs.field(factory=list)

    async def invoke(self, ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        self.seen.append(ctx)
        return await self.behaviour(ctx, arguments)


def tool(
    behaviour: Behaviour, *, name: str = "hand", parameters: JsonObject | None = None, timeout: float | None = None
) -> HandTool:
    return HandTool(behaviour, name=name, parameters=dict(parameters or NUMBER_SCHEMA), timeout=timeout)


async def echo(ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
    return ToolOutput({"n": arguments["n"], "user": ctx.user})


def _conforms(hand: HandTool) -> Tool[str]:
    """Type-level check: a hand-written class with these members is a `Tool`."""
    return hand


def call(arguments: str, name: str = "hand", call_id: str = "call-1") -> ToolCall:
    return ToolCall(call_id, name, arguments)


@pytest.fixture
def ctx() -> RunContext[str]:
    return RunContext.ephemeral("alice")


# success


async def test_success_renders_the_output(ctx: RunContext[str]) -> None:
    """A successful call answers with the output's rendered text under the call's id."""
    result = await execute_tool_call(tool(echo), call('{"n": 3}', call_id="c9"), ctx)
    assert result == ToolResult("c9", '{"n":3,"user":"alice"}', is_error=False)


async def test_the_tool_gets_its_context(ctx: RunContext[str]) -> None:
    """The tool receives ``ToolContext(ctx, call_id, tool.name)`` and can signal through `actions`."""

    async def escalate(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        tool_ctx.actions.escalate()
        return ToolOutput("done")

    hand = tool(escalate, name="stopper")
    result = await execute_tool_call(hand, call('{"n": 1}', name="stopper", call_id="c2"), ctx)
    assert result == ToolResult("c2", "done")
    assert [(seen.run, seen.call_id, seen.tool_name) for seen in hand.seen] == [(ctx, "c2", "stopper")]
    assert ctx.actions.escalated


async def test_blank_arguments_mean_an_empty_object(ctx: RunContext[str]) -> None:
    """Blank argument text is ``{}``."""

    async def count(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        return ToolOutput(len(arguments))

    hand = tool(count, parameters={"type": "object", "properties": {}})
    assert await execute_tool_call(hand, call("  "), ctx) == ToolResult("call-1", "0")


# errors before the tool runs


async def test_unknown_tool(ctx: RunContext[str]) -> None:
    """No tool by that name: ``unknown tool: NAME``."""
    result = await execute_tool_call(None, call("{}", name="teleport"), ctx)
    assert result == ToolResult("call-1", "unknown tool: teleport", is_error=True)


async def test_malformed_json(ctx: RunContext[str]) -> None:
    """Argument text that is not JSON is reported with the parser's message; the tool does not run."""
    hand = tool(echo)
    assert isinstance(_conforms(hand), Tool)
    result = await execute_tool_call(hand, call('{"n": '), ctx)
    assert result.is_error
    assert result.output.startswith("invalid arguments for tool 'hand': not valid JSON (Expecting value")
    assert hand.seen == []


async def test_arguments_that_are_not_an_object(ctx: RunContext[str]) -> None:
    """JSON that is not an object is refused."""
    result = await execute_tool_call(tool(echo), call("[1, 2]"), ctx)
    assert result == ToolResult(
        "call-1", "invalid arguments for tool 'hand': arguments must be a JSON object, got array", is_error=True
    )


async def test_arguments_off_the_schema(ctx: RunContext[str]) -> None:
    """Every schema violation is listed with its path; the tool does not run."""
    hand = tool(echo)
    result = await execute_tool_call(hand, call('{"n": "3", "m": 1}'), ctx)
    assert result == ToolResult(
        "call-1",
        "invalid arguments for tool 'hand': $.n: expected integer, got string; $.m: unexpected field",
        is_error=True,
    )
    assert hand.seen == []


# errors from the tool


async def test_tool_error_message_reaches_the_model(ctx: RunContext[str]) -> None:
    """A `ToolError` becomes an error result carrying exactly its message."""

    async def refuse(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        raise ToolError("the account is locked")

    result = await execute_tool_call(tool(refuse), call('{"n": 1}'), ctx)
    assert result == ToolResult("call-1", "the account is locked", is_error=True)


async def test_other_exceptions_name_their_type(ctx: RunContext[str]) -> None:
    """Any other exception: ``tool NAME raised TypeName: message``."""

    async def crash(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        raise KeyError("missing")

    async def crash_quietly(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        raise RuntimeError

    result = await execute_tool_call(tool(crash), call('{"n": 1}'), ctx)
    assert result == ToolResult("call-1", "tool hand raised KeyError: 'missing'", is_error=True)
    quiet = await execute_tool_call(tool(crash_quietly), call('{"n": 1}'), ctx)
    assert quiet == ToolResult("call-1", "tool hand raised RuntimeError", is_error=True)


async def test_an_exception_group_from_a_tool_nursery_is_an_error_result(ctx: RunContext[str]) -> None:
    """A tool whose own nursery fails is named by the exceptions inside the group."""

    async def fan_out(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        async def boom() -> None:
            raise ValueError("child failed")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(boom)
        return ToolOutput("unreachable")

    async def fan_out_twice(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        async def boom(message: str) -> None:
            raise ValueError(message)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(boom, "a")
            nursery.start_soon(boom, "b")
        return ToolOutput("unreachable")

    result = await execute_tool_call(tool(fan_out), call('{"n": 1}'), ctx)
    assert result == ToolResult("call-1", "tool hand raised ValueError: child failed", is_error=True)
    twice = await execute_tool_call(tool(fan_out_twice), call('{"n": 1}'), ctx)
    assert twice.is_error
    prefix = "tool hand raised ExceptionGroup: "
    assert twice.output.startswith(prefix)
    assert sorted(twice.output.removeprefix(prefix).split("; ")) == ["ValueError: a", "ValueError: b"]


async def test_a_tool_returning_something_else_than_tool_output(ctx: RunContext[str]) -> None:
    """A hand-written tool that breaks the protocol's return type gets an error result, not a crash."""

    async def wrong(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        return "text"  # type: ignore[return-value]

    result = await execute_tool_call(tool(wrong), call('{"n": 1}'), ctx)
    assert result == ToolResult("call-1", "tool hand returned str, not a ToolOutput", is_error=True)


async def test_a_tool_with_a_timeout_returning_none_is_not_a_timeout(
    ctx: RunContext[str], autojump_clock: trio.testing.MockClock
) -> None:
    """A hand-written tool with a ``timeout`` whose `invoke` returns `None` in time broke the protocol; it did
    not time out, and the model reads which."""

    async def nothing(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        return None  # type: ignore[return-value]

    result = await execute_tool_call(tool(nothing, timeout=5), call('{"n": 1}'), ctx)
    assert result == ToolResult("call-1", "tool hand returned NoneType, not a ToolOutput", is_error=True)


async def test_a_function_tool_with_a_timeout_returning_none_answers_null(ctx: RunContext[str]) -> None:
    """A function tool with a ``timeout`` whose function returns `None` answers ``null``."""

    @function_tool(timeout=5)
    def nothing() -> None:
        """Do nothing."""

    assert await execute_tool_call(nothing, call("", name="nothing"), ctx) == ToolResult("call-1", "null")


async def test_output_that_is_not_json(ctx: RunContext[str]) -> None:
    """Output content that cannot be rendered as JSON is an error result."""

    async def weird(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        return ToolOutput({"x": object()})  # type: ignore[dict-item]

    result = await execute_tool_call(tool(weird), call('{"n": 1}'), ctx)
    assert result.is_error
    assert result.output.startswith("tool hand returned output that is not JSON:")


async def test_function_tool_decode_errors_are_error_results(ctx: RunContext[str]) -> None:
    """A function tool's arguments are checked before it runs; a mismatch is an error result."""
    ran: list[int] = []

    @function_tool
    def record(n: int) -> int:
        """Record n."""
        ran.append(n)
        return n

    result = await execute_tool_call(record, call('{"n": true}', name="record"), ctx)
    assert result == ToolResult(
        "call-1", "invalid arguments for tool 'record': $.n: expected integer, got boolean", is_error=True
    )
    assert ran == []
    assert await execute_tool_call(record, call('{"n": 4}', name="record"), ctx) == ToolResult("call-1", "4")


# timeouts and cancellation


async def test_a_tool_timeout_ends_the_call(ctx: RunContext[str], autojump_clock: trio.testing.MockClock) -> None:
    """A tool with ``timeout`` that runs longer gets ``tool NAME timed out after N s`` at N seconds."""

    async def slow(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        await trio.sleep(10)
        return ToolOutput("late")

    start = trio.current_time()
    result = await execute_tool_call(tool(slow, timeout=1.5), call('{"n": 1}'), ctx)
    assert result == ToolResult("call-1", "tool hand timed out after 1.5 s", is_error=True)
    assert trio.current_time() - start == pytest.approx(1.5)


async def test_a_tool_within_its_timeout_succeeds(ctx: RunContext[str], autojump_clock: trio.testing.MockClock) -> None:
    """A tool that finishes before its timeout answers normally."""

    async def quick(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        await trio.sleep(0.5)
        return ToolOutput("in time")

    result = await execute_tool_call(tool(quick, timeout=1), call('{"n": 1}'), ctx)
    assert result == ToolResult("call-1", "in time")
    assert trio.current_time() == pytest.approx(0.5)


async def test_a_blocking_sync_function_tool_times_out(ctx: RunContext[str]) -> None:
    """A sync tool stuck in its thread still times out; the abandoned thread ends later.

    Real clock on purpose: under a MockClock sync tools run inline, where no timeout can interrupt them.
    """
    release = threading.Event()

    @function_tool(timeout=0.05)
    def stuck() -> str:
        """Block."""
        release.wait(timeout=10)
        return "late"

    result = await execute_tool_call(stuck, call("", name="stuck"), ctx)
    release.set()
    assert result == ToolResult("call-1", "tool stuck timed out after 0.05 s", is_error=True)


async def test_cancellation_propagates(ctx: RunContext[str], autojump_clock: trio.testing.MockClock) -> None:
    """A cancelled surrounding scope is not turned into a result: `Cancelled` unwinds through the call."""
    finished: list[ToolResult] = []

    async def slow(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        await trio.sleep(10)
        return ToolOutput("late")

    for timeout in (None, 5.0):
        with trio.move_on_after(1) as scope:
            finished.append(await execute_tool_call(tool(slow, timeout=timeout), call('{"n": 1}'), ctx))
        assert scope.cancelled_caught
    assert finished == []


async def test_cancelling_the_run_context_cancels_a_running_tool(
    ctx: RunContext[str], autojump_clock: trio.testing.MockClock
) -> None:
    """`ctx.cancel()` from another task reaches a tool running under a scope attached to the run."""
    finished: list[ToolResult] = []

    async def slow(tool_ctx: ToolContext[str], arguments: JsonObject) -> ToolOutput:
        await trio.sleep(10)
        return ToolOutput("late")

    async def canceller() -> None:
        await trio.sleep(1)
        ctx.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(canceller)
        with trio.CancelScope() as scope, ctx.cancel_token.attach(scope):
            finished.append(await execute_tool_call(tool(slow), call('{"n": 1}'), ctx))
    assert scope.cancelled_caught
    assert finished == []
    assert trio.current_time() == pytest.approx(1)
