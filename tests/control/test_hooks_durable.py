"""Hooks in recorded runs (`Runner(store=...)`): what a hook changed in the conversation is in the records, so a
resume continues exactly; what it injected is not."""

from __future__ import annotations

import trio
import trio.testing
from tests.control.control_fakes import collect, logging_hook, lookup_tool

from helikon_fc import AgentInput, LlmAgent, RunContext, Runner
from helikon_fc.core import HookDenied, ModelRequest, RunCompleted, SystemMessage, ToolResult
from helikon_fc.shell.control.hooks import (
    Deny,
    HookDecision,
    HookPoint,
    InjectSystemMessage,
    OnTurnStart,
    PostToolUse,
    PreToolUse,
    ReplaceInput,
    ReplaceOutput,
)
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import FunctionModel, call, call_tools, reply
from helikon_fc.testing.script import ScriptedTurn


def _rewrite(point: HookPoint) -> HookDecision | None:
    match point:
        case PreToolUse():
            return ReplaceInput({"key": "rewritten"})
        case PostToolUse(output=output):
            return ReplaceOutput(f"checked: {output}")
        case OnTurnStart(turn=turn):
            return InjectSystemMessage(f"secret injection {turn}")
    return None


def _agent(calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
    def turn(request: ModelRequest) -> ScriptedTurn:
        requests.append(request)
        results = [item for item in request.items if isinstance(item, ToolResult)]
        return reply(f"saw {results[0].output}") if results else call_tools(call("lookup", key="k").with_id("c1"))

    return LlmAgent(
        name="worker", model=FunctionModel(turn), tools=[lookup_tool(calls)], hooks=[logging_hook([], "h", _rewrite)]
    )


async def test_replaced_arguments_and_output_are_recorded_and_injections_are_not(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The tool ran with the replaced arguments and its replaced output is what the log holds; no record carries
    an injected system message."""
    store = MemoryStore()
    calls: list[str] = []
    requests: list[ModelRequest] = []
    stream = Runner(store=store).run(
        _agent(calls, requests), RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id="r"
    )
    events = await collect(stream)
    assert isinstance(events[-1], RunCompleted) and calls == ["rewritten"]
    assert list(requests[1].items)[-1] == SystemMessage("secret injection 1")
    bodies = [record.body for record in await store.read_run_records("r")]
    assert any("checked: value of rewritten" in body for body in bodies)
    assert not any("secret injection" in body for body in bodies)


async def test_a_resume_after_the_tool_round_continues_with_the_replaced_output(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Crash after the hooked tool call finished: the resumed run does not call the tool again, and the model
    reads the output as the PostToolUse hook replaced it."""
    store = MemoryStore()
    calls: list[str] = []
    requests: list[ModelRequest] = []
    cancel = trio.CancelScope()
    with cancel:
        stream = Runner(store=store).run(
            _agent(calls, requests), RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id="r"
        )
        async with stream as received:
            async for event in received:
                if type(event).__name__ == "ToolOutputItem":
                    cancel.cancel()  # the process dies here: the round is recorded, the answer is not
    assert calls == ["rewritten"] and len(requests) <= 2
    requests.clear()
    resumed = await collect(Runner(store=store).resume("r", _agent(calls, requests), RunContext.ephemeral(None)))
    assert isinstance(resumed[-1], RunCompleted) and calls == ["rewritten"]
    assert [item for item in requests[-1].items if isinstance(item, ToolResult)] == [
        ToolResult("c1", "checked: value of rewritten")
    ]


async def test_a_denied_turn_is_the_recorded_end(autojump_clock: trio.testing.MockClock) -> None:
    """A Deny at OnTurnStart is recorded as the run's failure: resuming gives it back and calls nothing."""
    store = MemoryStore()
    calls: list[str] = []
    requests: list[ModelRequest] = []
    deny = logging_hook([], "d", lambda p: Deny("budget") if p == OnTurnStart(1) else None)
    agent = _agent(calls, requests).with_hooks(deny)
    first = await collect(
        Runner(store=store).run(agent, RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id="r")
    )
    assert first[-1].error == HookDenied("on_turn_start", "budget")  # type: ignore[union-attr]
    again = await collect(Runner(store=store).resume("r", agent, RunContext.ephemeral(None), replay=True))
    assert again == first and len(requests) == 1 and calls == ["rewritten"]
