"""Bad input and faults (issue 3): each ends in a typed error or an error result the model reads —
never a hang, never a traceback out of the stream."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs
import pytest
import trio
import trio.testing
from tests.shell.loop_fakes import (
    NO_PARAMETERS,
    FuncTool,
    SleepTool,
    drain,
    ephemeral,
    kinds,
    raising,
    tool_error,
)

from helikon_fc import (
    AgentEvent,
    AgentInput,
    Cancelled,
    Handoff,
    LlmAgent,
    ModelError,
    ModelFailed,
    ModelRequest,
    OtherError,
    RunCompleted,
    RunError,
    RunFailed,
    RunResultStreaming,
    RunStarted,
    TokenDelta,
    ToolOutputItem,
    ToolResult,
)
from helikon_fc.agents.protocol import RunStream
from helikon_fc.core import JsonObject, ModelFailureKind, ModelTextDelta
from helikon_fc.models.protocol import ModelStream
from helikon_fc.shell.tools.tool import ToolContext, ToolOutput
from helikon_fc.testing import ScriptedModel, broken, call, call_tools, fail, pause, raw, reply

QUESTION = AgentInput.from_user_text("What did I spend on dining?")

CATEGORY: JsonObject = {
    "type": "object",
    "properties": {"category": {"type": "string"}},
    "required": ["category"],
    "additionalProperties": False,
}


def agent_with(model: Any, *tools: Any) -> LlmAgent[None]:
    return LlmAgent(name="budget", model=model, tools=tools)


def tool_outputs(events: list[AgentEvent]) -> list[ToolResult]:
    return [event.item for event in events if isinstance(event, ToolOutputItem)]


def second_request_results(model: ScriptedModel) -> list[ToolResult]:
    """The tool results the model read on its second turn."""
    return [item for item in model.requests[1].items if isinstance(item, ToolResult)]


async def test_a_tool_that_raises_becomes_an_error_result() -> None:
    """A tool raising an exception (or a `ToolError`) is an error result the model reads; the run goes on."""
    boom, refused = FuncTool("boom", raising), FuncTool("refused", tool_error)
    model = ScriptedModel([call_tools(call("boom"), call("refused")), reply("Sorry, the ledger is locked.")])
    result = await RunResultStreaming(agent_with(model, boom, refused).run(ephemeral(), QUESTION)).collect()
    outputs = tool_outputs(list(result.events))
    assert [o.is_error for o in outputs] == [True, True]
    assert "RuntimeError" in outputs[0].output and "the ledger is locked" in outputs[0].output
    assert outputs[1].output == "category not found"
    assert second_request_results(model) == outputs
    assert result.final_output == "Sorry, the ledger is locked."


@attrs.define
class NeverReturns:
    """A tool that never returns, bounded by its own `timeout`."""

    name: str = "stuck"
    description: str = "Hangs."
    parameters: JsonObject = attrs.field(factory=lambda: dict(NO_PARAMETERS))
    timeout: float = 3.0

    async def invoke(self, ctx: ToolContext[Any], arguments: JsonObject) -> ToolOutput:
        await trio.sleep(math.inf)
        raise AssertionError("unreachable")  # pragma: no cover


async def test_a_tool_that_never_returns_times_out(autojump_clock: trio.testing.MockClock) -> None:
    """A tool that never returns, under its timeout, is an error result after exactly that timeout."""
    model = ScriptedModel([call_tools(call("stuck"), call("quick")), reply("It timed out.")])
    start = trio.current_time()
    events = await drain(agent_with(model, NeverReturns(), SleepTool("quick", seconds=1)).run(ephemeral(), QUESTION))
    assert trio.current_time() - start == 3.0
    stuck, quick = tool_outputs(events)
    assert stuck.is_error and "timed out" in stuck.output
    assert quick == ToolResult("call_0_1", "quick")
    assert isinstance(events[-1], RunCompleted)


async def test_malformed_argument_json_is_an_error_result() -> None:
    """Argument text that is not JSON never reaches the tool; the model reads why."""
    tool = FuncTool("spent", raising, parameters=CATEGORY)
    model = ScriptedModel([call_tools(call("spent").with_raw_arguments('{"category": ')), reply("Oops.")])
    events = await drain(agent_with(model, tool).run(ephemeral(), QUESTION))
    (result,) = tool_outputs(events)
    assert result.is_error and "not valid JSON" in result.output
    assert tool.calls == 0
    assert isinstance(events[-1], RunCompleted)


async def test_arguments_of_the_wrong_type_are_an_error_result() -> None:
    """Arguments that are JSON but off the schema never reach the tool; the model reads the schema errors."""
    tool = FuncTool("spent", raising, parameters=CATEGORY)
    model = ScriptedModel([call_tools(call("spent", category=42)), reply("Oops.")])
    events = await drain(agent_with(model, tool).run(ephemeral(), QUESTION))
    (result,) = tool_outputs(events)
    assert result.is_error and "category" in result.output and "invalid arguments" in result.output
    assert tool.calls == 0
    assert second_request_results(model) == [result]


async def test_an_unknown_tool_is_an_error_result() -> None:
    """A call to a tool the agent does not have is an error result naming the tools it does have."""
    model = ScriptedModel([call_tools(call("teleport")), reply("I cannot teleport.")])
    events = await drain(agent_with(model, SleepTool("spent", seconds=0)).run(ephemeral(), QUESTION))
    (result,) = tool_outputs(events)
    assert result.is_error and "unknown tool" in result.output and "spent" in result.output
    assert isinstance(events[-1], RunCompleted)


async def test_a_model_that_fails_before_streaming() -> None:
    """A model call that fails before its first event ends the run with a typed `ModelFailed`."""
    error = ModelError(ModelFailureKind.RATE_LIMITED, "slow down", retry_after=7.5)
    events = await drain(agent_with(ScriptedModel([fail(error)])).run(ephemeral(), QUESTION))
    assert kinds(events) == ["RunStarted", "TurnStarted", "RunFailed"]
    assert events[-1] == RunFailed(ModelFailed(ModelFailureKind.RATE_LIMITED, "slow down", 7.5))


async def test_a_model_stream_that_breaks_mid_turn() -> None:
    """A stream that raises mid-turn ends the run with `ModelFailed`, after the deltas already delivered."""
    model = ScriptedModel([broken(ModelTextDelta("You spent"), error=ModelFailureKind.TRANSPORT)])
    events = await drain(agent_with(model).run(ephemeral(), QUESTION))
    assert kinds(events) == ["RunStarted", "TurnStarted", "TokenDelta", "RunFailed"]
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, ModelFailed)
    assert events[-1].error.kind is ModelFailureKind.TRANSPORT


async def test_a_model_that_returns_nothing() -> None:
    """A stream that ends with no events at all (no finish reason) is a truncated stream: ``TRANSPORT``."""
    events = await drain(agent_with(ScriptedModel([raw()])).run(ephemeral(), QUESTION))
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, ModelFailed)
    assert events[-1].error.kind is ModelFailureKind.TRANSPORT
    assert "without a finish reason" in events[-1].error.message


async def test_a_stream_truncated_after_some_text() -> None:
    """Text followed by the end of the stream, with no finish, is not mistaken for a complete answer."""
    events = await drain(agent_with(ScriptedModel([raw(ModelTextDelta("Half an answ"))])).run(ephemeral(), QUESTION))
    assert kinds(events)[-2:] == ["TokenDelta", "RunFailed"]
    assert "MessageOutput" not in kinds(events)


class ExplodingModel:
    """A model whose stream raises something that is not a `ModelError`."""

    name = "exploding"

    def stream(self, request: ModelRequest) -> ModelStream:
        raise KeyError("choices")


async def test_a_model_raising_anything_else_is_model_failed_other() -> None:
    """Any other exception from the model is `ModelFailed(OTHER, "<Type>: <message>")`, not a traceback."""
    events = await drain(agent_with(ExplodingModel()).run(ephemeral(), QUESTION))
    assert events[-1] == RunFailed(ModelFailed(ModelFailureKind.OTHER, "KeyError: 'choices'"))


async def test_cancelled_from_outside_while_tools_run(autojump_clock: trio.testing.MockClock) -> None:
    """``ctx.cancel()`` from another task while tools run ends the run with `RunFailed(Cancelled)`; the tools
    stop and never finish."""
    slow = SleepTool("slow", seconds=10)
    model = ScriptedModel([call_tools(call("slow"), call("slow")), reply("never")])
    ctx = ephemeral()
    events: list[AgentEvent] = []
    async with trio.open_nursery() as nursery:

        async def cancel_later() -> None:
            await trio.sleep(2)
            ctx.cancel("user pressed stop")

        nursery.start_soon(cancel_later)
        events = await drain(agent_with(model, slow).run(ctx, QUESTION))
    assert events[-1] == RunFailed(Cancelled("user pressed stop"))
    assert len(slow.started) == 2 and slow.finished == []
    assert trio.current_time() == 2.0
    assert len(model.requests) == 1


async def test_a_run_on_an_already_cancelled_context() -> None:
    """A context cancelled before the run starts ends it at once with `RunFailed(Cancelled)`, no model call."""
    ctx = ephemeral()
    ctx.cancel()
    model = ScriptedModel([reply("never")])
    events = await drain(agent_with(model).run(ctx, QUESTION))
    assert kinds(events) == ["RunStarted", "RunFailed"]
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, Cancelled)
    assert "already cancelled (run cancelled)" in events[-1].error.reason
    assert model.requests == ()


async def test_consumer_leaving_mid_run_cancels_running_tools(autojump_clock: trio.testing.MockClock) -> None:
    """Leaving the stream's block mid-run cancels tools still running: they never finish, and no task is left."""
    slow = SleepTool("slow", seconds=10)
    model = ScriptedModel([call_tools(call("slow"), call("slow")), reply("never")])
    tasks_before = trio.lowlevel.current_statistics().tasks_living
    async with agent_with(model, slow).run(ephemeral(), QUESTION) as events:
        async for event in events:
            if kinds([event]) == ["ToolCallItem"]:
                await trio.sleep(1)  # the tools are running now
                break
    assert len(slow.started) == 2 and slow.finished == []
    assert trio.lowlevel.current_statistics().tasks_living == tasks_before
    await trio.sleep(20)
    assert slow.finished == []
    assert trio.current_time() == 1.0 + 20.0


async def test_instructions_that_raise_fail_the_run() -> None:
    """Instructions rendering raising ends the run with a `RunFailed(OtherError)` naming the agent."""

    def instructions(ctx: Any) -> str:
        raise LookupError("no profile")

    agent = LlmAgent(name="budget", model=ScriptedModel([reply("x")]), instructions=instructions)
    events = await drain(agent.run(ephemeral(), QUESTION))
    assert kinds(events) == ["RunStarted", "RunFailed"]
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, OtherError)
    assert "budget" in str(events[-1].error) and "no profile" in str(events[-1].error)


async def test_an_internal_error_is_a_run_failed_event(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug inside the loop surfaces as `RunFailed(OtherError("internal error: ..."))`, never as an exception."""
    from helikon_fc.engine import loop

    def broken_transition(*args: object) -> Any:
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(loop, "transition", broken_transition)
    events = await drain(agent_with(ScriptedModel([reply("x")])).run(ephemeral(), QUESTION))
    assert events[-1] == RunFailed(OtherError("internal error: ZeroDivisionError: oops"))


async def test_slow_model_deltas_are_not_lost_when_consumer_is_slow(autojump_clock: trio.testing.MockClock) -> None:
    """A slow consumer loses nothing: every delta arrives, in order."""
    text = " ".join(f"w{i}" for i in range(200))
    model = ScriptedModel([reply(text)])
    received: list[str] = []
    async with agent_with(model).run(ephemeral(), QUESTION) as events:
        async for event in events:
            if isinstance(event, TokenDelta):
                received.append(event.text)
            await trio.sleep(0.01)
    assert "".join(received) == text


@pytest.mark.parametrize("latency", [0.0, 5.0])
async def test_pauses_in_a_stream_do_not_hang(autojump_clock: trio.testing.MockClock, latency: float) -> None:
    """A stream that pauses mid-turn and then finishes completes normally."""
    from helikon_fc.core import FinishReason, ModelFinish

    model = ScriptedModel(
        [raw(ModelTextDelta("a"), pause(3), ModelTextDelta("b"), ModelFinish(FinishReason.STOP), latency=latency)]
    )
    result = await RunResultStreaming(agent_with(model).run(ephemeral(), QUESTION)).collect()
    assert result.final_output == "ab"
    assert trio.current_time() == latency + 3


class OddModel:
    """A model whose stream yields something that is not a `ModelEvent`."""

    name = "odd"

    def stream(self, request: ModelRequest) -> ModelStream:
        @asynccontextmanager
        async def events() -> AsyncIterator[AsyncIterator[Any]]:
            async def iterate() -> AsyncIterator[Any]:
                yield ModelTextDelta("Hi")
                yield {"delta": "not an event"}

            iterator = iterate()
            try:
                yield iterator
            finally:
                await iterator.aclose()  # type: ignore[attr-defined]

        return events()


async def test_a_model_streaming_something_else_is_model_failed() -> None:
    """A stream item that is not a `ModelEvent` fails the run with `ModelFailed(OTHER)` naming it."""
    events = await drain(agent_with(OddModel()).run(ephemeral(), QUESTION))
    assert kinds(events) == ["RunStarted", "TurnStarted", "TokenDelta", "RunFailed"]
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, ModelFailed)
    assert "dict" in events[-1].error.message and "odd" in events[-1].error.message


class BrokenConnectionModel:
    """A model whose own connection breaks the trio way (a trio socket stream raises `BrokenResourceError`)."""

    name = "broken-connection"

    def stream(self, request: ModelRequest) -> ModelStream:
        raise trio.BrokenResourceError("connection reset by peer")


@pytest.mark.parametrize("collect", [False, True])
async def test_a_model_whose_connection_breaks_still_ends_with_one_terminal_event(collect: bool) -> None:
    """A model raising trio's `BrokenResourceError` is a model failure like any other: it ends the run with
    `RunFailed(ModelFailed)`, not a stream that stops without a terminal event (the consumer is still there)."""
    run = agent_with(BrokenConnectionModel()).run(ephemeral(), QUESTION)
    if collect:
        with pytest.raises(RunError) as caught:
            await RunResultStreaming(run).collect()
        events = list(caught.value.events)
    else:
        events = await drain(run)
    assert kinds(events) == ["RunStarted", "TurnStarted", "RunFailed"]
    assert events[-1] == RunFailed(ModelFailed(ModelFailureKind.OTHER, "BrokenResourceError: connection reset by peer"))


@attrs.frozen
class BrokenTransportAgent:
    """A hand-written agent whose stream (a remote agent over a trio socket, say) breaks the trio way."""

    name: str = "remote"
    description: str = "An agent served elsewhere."

    def run(self, ctx: Any, input: AgentInput) -> RunStream:
        @asynccontextmanager
        async def stream() -> AsyncIterator[AsyncIterator[AgentEvent]]:
            async def events() -> AsyncIterator[AgentEvent]:
                yield RunStarted(self.name)
                raise trio.BrokenResourceError("connection reset by peer")

            yield events()

        return stream()


async def test_a_handoff_target_whose_stream_breaks_still_ends_the_run_with_one_terminal_event() -> None:
    """`emit_run` takes a `BrokenResourceError` out of a run's body for the consumer leaving only if sending the
    terminal event fails too: a handoff target's own broken stream ends the parent's stream with `RunFailed`."""
    model = ScriptedModel([call_tools(call("transfer_to_remote"))])
    triage: LlmAgent[None] = LlmAgent(name="triage", model=model, handoffs=[Handoff.to(BrokenTransportAgent())])
    events = await drain(triage.run(ephemeral(), QUESTION))
    assert kinds(events)[-3:] == ["HandoffItem", "AgentUpdated", "RunFailed"]
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, OtherError)
    assert "BrokenResourceError: connection reset by peer" in events[-1].error.message
