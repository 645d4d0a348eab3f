"""`ScriptedModel` after a crash: a script's position comes from the turns its request's conversation
already shows, so a resumed run asks and is answered as the uninterrupted run was (a real model sees the
conversation, not a count of earlier calls)."""

from __future__ import annotations

import trio
import trio.testing

from helikon_fc import AgentInput, LlmAgent, RunContext, Runner, RunResultStreaming, ToolContext, function_tool
from helikon_fc.core import (
    AssistantMessage,
    Conversation,
    ModelRequest,
    RunCompleted,
    ToolCall,
    ToolResult,
    UserMessage,
    assemble_response,
)
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, reply

Ran = list[str]
"""The label of every tool call made, in order."""


def _agent(ran: Ran) -> LlmAgent[None]:
    """Two rounds of one slow lookup each (1 s), then an answer."""

    @function_tool
    async def lookup(ctx: ToolContext[None], month: str) -> str:
        """Spending in a month.

        Args:
            month: the month.
        """
        await trio.sleep(1)
        ran.append(month)
        return f"{month}: $700"

    model = ScriptedModel(
        [
            call_tools(call("lookup", month="2026-10")),
            call_tools(call("lookup", month="2026-11")),
            reply("$1400 in two months."),
        ]
    )
    return LlmAgent(name="report", model=model, tools=[lookup])


def _requests(agent: LlmAgent[None]) -> int:
    model = agent.model
    assert isinstance(model, ScriptedModel)
    return len(model.requests)


async def _crash_in_the_second_round(store: MemoryStore, agent: LlmAgent[None]) -> None:
    """Run `agent` recorded under ``"r"`` and stop it dead 1.5 s in: the second round's lookup is running."""
    with trio.move_on_after(1.5):
        ctx, input = RunContext.ephemeral(None), AgentInput.from_user_text("Sum up.")
        stream = Runner(store=store).run(agent, ctx, input, run_id="r")
        await RunResultStreaming(stream).collect()


async def test_a_scripted_run_resumed_with_a_rebuilt_agent_ends_as_the_uninterrupted_run(
    autojump_clock: object,
) -> None:
    """Crashed in its second tool round and resumed with the agent built again (as another process would): the
    script goes on at its third turn, so the first round's tool is not run again and three requests are made."""
    store = MemoryStore()
    ran: Ran = []
    first = _agent(ran)
    await _crash_in_the_second_round(store, first)
    assert ran == ["2026-10"]
    again = _agent(ran)
    result = await RunResultStreaming(Runner(store=store).resume("r", again, RunContext.ephemeral(None))).collect()
    assert result.final_output == "$1400 in two months."
    assert ran == ["2026-10", "2026-11"]  # the lookup in flight at the crash ran again; the first did not
    assert _requests(first) + _requests(again) == 3
    assert result.usage.requests == 3
    assert _requests(again) == 1


async def test_a_scripted_run_resumed_with_the_same_agent_in_the_same_trio_run(autojump_clock: object) -> None:
    """The same agent object resumes too: the turns it served before the crash are the ones its conversation shows."""
    store = MemoryStore()
    ran: Ran = []
    agent = _agent(ran)
    await _crash_in_the_second_round(store, agent)
    result = await RunResultStreaming(Runner(store=store).resume("r", agent, RunContext.ephemeral(None))).collect()
    assert result.final_output == "$1400 in two months."
    assert ran == ["2026-10", "2026-11"]
    assert isinstance(result.events[-1], RunCompleted) and result.events[-1].usage.requests == 3


def test_a_scripted_run_resumed_in_another_trio_run() -> None:
    """A module-level agent resumed in a new trio run (as in a new process) goes on where it stopped."""
    ran: Ran = []
    agent = _agent(ran)
    store = MemoryStore()  # (a store's records outlive the trio run, as a file's outlive a process)

    async def resume() -> str:
        stream = Runner(store=store).resume("r", agent, RunContext.ephemeral(None))
        return (await RunResultStreaming(stream).collect()).final_output

    trio.run(_crash_in_the_second_round, store, agent, clock=trio.testing.MockClock(autojump_threshold=0))
    assert _requests(agent) == 2
    assert trio.run(resume, clock=trio.testing.MockClock(autojump_threshold=0)) == "$1400 in two months."
    assert ran == ["2026-10", "2026-11"]
    assert _requests(agent) == 1  # the latest trio run's: the last turn only


async def _answer(model: ScriptedModel, *items: object) -> str:
    request = ModelRequest(instructions=None, items=Conversation(items))  # type: ignore[arg-type]
    async with model.stream(request) as events:
        response = assemble_response([event async for event in events])
    return response.text or ",".join(f"{c.call_id}:{c.name}" for c in response.tool_calls)


async def test_the_position_is_the_turn_after_the_last_one_the_conversation_shows() -> None:
    """A fresh model shown its own turns 0 and 1 answers with turn 2; turns of other models (or none) count
    for nothing, so a conversation without any of its turns starts at the next turn it has not served."""
    script: list[ScriptedTurn] = [call_tools(call("f")), reply("one"), call_tools(call("g")), reply("three")]
    shown = (UserMessage("hi"), ToolCall("call_0_0", "f", "{}"), ToolResult("call_0_0", "ok"))
    assert await _answer(ScriptedModel(script), *shown, AssistantMessage("one"), UserMessage("go on")) == "call_2_0:g"
    assert await _answer(ScriptedModel(script), *shown) == "one"
    other = (UserMessage("hi"), ToolCall("call_0_0", "transfer_to_x", "{}"), ToolResult("call_0_0", "ok"))
    assert await _answer(ScriptedModel(script), *other) == "call_0_0:f"
    # repeated identical turns are told apart by their order in the conversation
    twice = ScriptedModel([reply("ok"), reply("ok"), reply("last")])
    assert await _answer(twice, UserMessage("a"), AssistantMessage("ok"), UserMessage("b")) == "ok"
    again = ScriptedModel([reply("ok"), reply("ok"), reply("last")])
    seen = (UserMessage("a"), AssistantMessage("ok"), UserMessage("b"), AssistantMessage("ok"), UserMessage("c"))
    assert await _answer(again, *seen) == "last"


async def test_turns_served_in_this_trio_run_still_count() -> None:
    """A request that shows fewer turns than the model served (another conversation sharing it) takes the next one."""
    model = ScriptedModel([reply("first"), reply("second"), reply("third")])
    assert await _answer(model, UserMessage("a")) == "first"
    assert await _answer(model, UserMessage("b")) == "second"
    assert await _answer(model, UserMessage("a"), AssistantMessage("first"), UserMessage("more")) == "third"
