"""What a resumed stream shows: every event after the announcement of the agent it belongs to, at every
depth, and a finished run's answer, usage and output type, given back without calling anything.

The crashes are simulated by a store truncated at the right record: the uninterrupted run's records, cut
where a ``kill -9`` during the handoff target's tool call would have left them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import attrs
import pytest
import trio

from helikon_fc import (
    AgentInput,
    Handoff,
    LlmAgent,
    ParallelAgent,
    RunContext,
    Runner,
    RunResultStreaming,
    SequentialAgent,
    ToolContext,
    function_tool,
)
from helikon_fc.agents.protocol import Agent
from helikon_fc.core import (
    AgentEvent,
    AgentUpdated,
    ModelRequest,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    ToolResult,
    to_json,
)
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import FunctionModel, call, call_tools, reply
from helikon_fc.testing.script import ScriptedTurn

Asked = list[str]
"""The agents whose models were called, one entry per call."""


def _worker(name: str, asked: Asked, *, handoff_to: LlmAgent[None] | None = None) -> LlmAgent[None]:
    """Looks an invoice up, then answers; or (with `handoff_to`) transfers to that agent at once."""

    @function_tool
    async def lookup(ctx: ToolContext[None], invoice: str) -> str:
        """Look an invoice up.

        Args:
            invoice: its number.
        """
        await trio.sleep(1)
        return f"{invoice} paid on 3 March"

    def turn(request: ModelRequest) -> ScriptedTurn:
        asked.append(name)
        if handoff_to is not None:
            return call_tools(call(f"transfer_to_{handoff_to.name}").with_id(f"{name}-h"))
        results = [item.output for item in request.items if isinstance(item, ToolResult) and item.call_id == name]
        if not results:
            return call_tools(call("lookup", invoice="INV-7").with_id(name))
        return reply(f"{name}: INV-7 was paid on 3 March.")

    handoffs = [Handoff.to(handoff_to)] if handoff_to is not None else []
    return LlmAgent(name=name, model=FunctionModel(turn), tools=[lookup], handoffs=handoffs)


def handoff(asked: Asked) -> tuple[Agent[None], str]:
    return _worker("triage", asked, handoff_to=_worker("billing", asked)), "handoff:billing"


def nested_handoffs(asked: Asked) -> tuple[Agent[None], str]:
    billing = _worker("billing", asked, handoff_to=_worker("ledger", asked))
    return _worker("triage", asked, handoff_to=billing), "handoff:ledger"


def handoff_in_a_sequence(asked: Asked) -> tuple[Agent[None], str]:
    router = handoff(asked)[0]
    return SequentialAgent("desk").then(_worker("intake", asked)).then(router), "handoff:billing"


def handoff_in_a_branch(asked: Asked) -> tuple[Agent[None], str]:
    router = handoff(asked)[0]
    return ParallelAgent("desk").add(router).add(_worker("notes", asked)), "handoff:billing"


BUILDS = [handoff, nested_handoffs, handoff_in_a_sequence, handoff_in_a_branch]


async def _run(store: MemoryStore, agent: Agent[None], *, resume: bool) -> list[AgentEvent]:
    runner = Runner(store=store)
    ctx = RunContext.ephemeral(None)
    stream = (
        runner.resume("r", agent, ctx)
        if resume
        else runner.run(agent, ctx, AgentInput.from_user_text("Was INV-7 paid?"), run_id="r")
    )
    events: list[AgentEvent] = []
    async with stream as received:
        async for event in received:
            events.append(event)
    return events


async def _cut(store: MemoryStore, target: str) -> MemoryStore:
    """A copy of `store` as a crash during the tool call of the run whose id ends with `target` leaves it: that
    run's records end before its first tool result, and the runs above it have not finished."""
    cut = MemoryStore()
    runs = await store.runs()
    (target_id,) = [summary.run_id for summary in runs if summary.run_id.endswith(target)]
    for summary in runs:
        records = await store.read_run_records(summary.run_id)
        status = summary.status
        if summary.run_id == target_id:
            first_result = next(i for i, record in enumerate(records) if record.kind == "tool_finished")
            records, status = records[:first_result], "running"
        elif target_id.startswith(summary.run_id + "/"):
            records, status = records[:-1], "running"  # its run_finished was not written yet
        await cut.create_run(summary.run_id, summary.agent, records)
        if status != "running":
            await cut.append_run_records(summary.run_id, (), status)
    return cut


_ANNOUNCING = (RunStarted, AgentUpdated, RunCompleted, RunFailed, RunPaused)


def _attributed(events: Sequence[AgentEvent]) -> list[tuple[str, str]]:
    """Each event (but announcements and terminals) with the agent announced last before it."""
    active = ""
    found: list[tuple[str, str]] = []
    for event in events:
        if isinstance(event, RunStarted | AgentUpdated):
            active = event.agent
        elif not isinstance(event, _ANNOUNCING):
            found.append((active, json.dumps(json.loads(to_json(event)), sort_keys=True)))
    return found


def _settled(event: AgentEvent) -> AgentEvent:
    if isinstance(event, RunCompleted):
        return attrs.evolve(event, usage_by_agent=tuple(sorted(event.usage_by_agent, key=lambda part: part.agent)))
    return event


@pytest.mark.parametrize("build", BUILDS)
async def test_a_resumed_stream_announces_the_active_agent_before_its_events(
    build: Callable[[Asked], tuple[Agent[None], str]], autojump_clock: object
) -> None:
    """Crashed during the handoff target's tool call (at any depth: a handoff of a handoff, one inside a
    workflow step or a parallel branch), the resumed stream credits each event to the agent the
    uninterrupted run credited it to: the target is announced before its tool call and its answer."""
    agent, target = build([])
    store = MemoryStore()
    baseline = await _run(store, agent, resume=False)
    resumed = await _run(await _cut(store, target), build([])[0], resume=True)
    assert _settled(resumed[-1]) == _settled(baseline[-1])
    expected = set(_attributed(baseline))
    shown = _attributed(resumed)
    assert any('"tool_call"' in wire for _, wire in shown)  # the resumed part has events to credit
    assert [pair for pair in shown if pair not in expected] == []


def _structured(asked: Asked) -> LlmAgent[None]:
    @attrs.frozen
    class Invoice:
        number: str
        paid: bool

    def turn(request: ModelRequest) -> ScriptedTurn:
        asked.append("clerk")
        return reply(json.dumps({"number": "INV-7", "paid": True}))

    return LlmAgent(name="clerk", model=FunctionModel(turn), output_type=Invoice)


async def test_resuming_a_finished_run_gives_back_its_answer_and_usage_without_calling_anything(
    autojump_clock: object,
) -> None:
    """`collect()` of a finished run's resume has the original's final output and usage, and no model is asked."""
    for build in BUILDS:
        asked: Asked = []
        store = MemoryStore()
        agent = build(asked)[0]
        first = await RunResultStreaming(
            Runner(store=store).run(agent, RunContext.ephemeral(None), AgentInput.from_user_text("INV-7?"), run_id="r")
        ).collect()
        assert first.final_output
        made = len(asked)
        again = await RunResultStreaming(Runner(store=store).resume("r", agent, RunContext.ephemeral(None))).collect()
        assert (again.final_output, again.usage, again.run_id) == (first.final_output, first.usage, "r"), build
        assert len(asked) == made, build  # nothing was called again
        assert _settled(again.events[-1]) == _settled(first.events[-1])
        assert set(_attributed(again.events)) <= set(_attributed(first.events)), build


async def test_resuming_a_finished_structured_run_gives_back_its_typed_output() -> None:
    """`collect_typed` of a finished structured-output run's resume decodes the same value; the model is not asked."""
    asked: Asked = []
    store = MemoryStore()
    agent = _structured(asked)
    output_type = agent.output_type
    assert output_type is not None
    runner = Runner(store=store)
    first = await RunResultStreaming(
        runner.run(agent, RunContext.ephemeral(None), AgentInput.from_user_text("INV-7?"), run_id="s")
    ).collect_typed(output_type)
    again = await RunResultStreaming(runner.resume("s", agent, RunContext.ephemeral(None))).collect_typed(output_type)
    assert again.final_output == first.final_output == output_type(number="INV-7", paid=True)
    assert again.usage == first.usage
    assert asked == ["clerk"]
