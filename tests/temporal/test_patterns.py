"""Every pattern that runs on Temporal, against the trio runner's events for the same scripts."""

from __future__ import annotations

from helikon_fc import (
    AgentAsTool,
    GraphAgent,
    Handoff,
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    SequentialAgent,
    SwarmAgent,
    function_tool,
)
from helikon_fc.core import (
    AgentEvent,
    AgentUpdated,
    GraphFailed,
    HandoffItem,
    MaxHandoffsExceeded,
    MaxIterationsExceeded,
    ModelFailureKind,
    ModelRequest,
    RunCompleted,
    RunFailed,
    ToolOutputItem,
    to_json,
)
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.tools.tool import ToolContext
from helikon_fc.testing import FunctionModel, ScriptedModel, ScriptedTurn, call, call_tools, fail, reply

from .harness import on_temporal, trio_events


def _llm(name: str, *turns: ScriptedTurn, **kwargs: object) -> LlmAgent[None]:
    return LlmAgent(name=name, model=ScriptedModel(list(turns)), **kwargs)  # type: ignore[arg-type]


def test_a_handoff_continues_in_the_target_with_both_usages(temporal_address: str) -> None:
    billing = _llm("billing", reply("refund sent"))
    triage = _llm("triage", call_tools(call("transfer_to_billing")), reply("unused"), handoffs=[Handoff.to(billing)])
    outcome = on_temporal(temporal_address, [triage], "triage", "refund please")
    assert outcome.events == trio_events(triage, "refund please")
    assert any(isinstance(e, HandoffItem) for e in outcome.events)
    assert outcome.result.output == "refund sent"
    assert outcome.result.usage.input_tokens == 20


def test_an_agent_as_tool_is_a_child_workflow(temporal_address: str) -> None:
    summarizer = _llm("summarizer", reply("short version"))
    writer = _llm(
        "writer",
        call_tools(call("summarizer", input="a long text")),
        reply("done: short version"),
        tools=[AgentAsTool(summarizer)],
    )
    outcome = on_temporal(temporal_address, [writer], "writer", "summarize")
    assert outcome.events == trio_events(writer, "summarize")
    outputs = [e.item.output for e in outcome.events if isinstance(e, ToolOutputItem)]
    assert outputs == ["short version"]
    assert len(outcome.histories) == 2  # the parent's and the sub-run's, both replayed
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunCompleted)
    assert [entry.agent for entry in terminal.usage_by_agent] == ["summarizer", "writer"]
    assert terminal.usage.requests == 3  # the sub-run's call counts in the parent's usage


def test_a_failed_agent_as_tool_sub_run_still_counts_its_calls(temporal_address: str) -> None:
    summarizer = _llm("summarizer", call_tools(call("no_such_tool")), fail(ModelFailureKind.REFUSED))
    writer = _llm(
        "writer",
        call_tools(call("summarizer", input="a long text")),
        reply("it failed"),
        tools=[AgentAsTool(summarizer)],
    )
    outcome = on_temporal(temporal_address, [writer], "writer", "summarize")
    assert outcome.events == trio_events(writer, "summarize")
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunCompleted)
    by_agent = {entry.agent: entry.usage.requests for entry in terminal.usage_by_agent}
    assert by_agent == {"summarizer": 1, "writer": 2}


def _echo_instructions(request: ModelRequest) -> ScriptedTurn:
    return reply(f"saw: {request.instructions}")


def test_sequential_steps_read_what_earlier_steps_wrote(temporal_address: str) -> None:
    first = _llm("first", reply("alpha"))
    second = LlmAgent[None](
        name="second",
        model=FunctionModel(_echo_instructions),
        instructions=lambda ctx: f"first said {ctx.state.get('first')}",
    )
    pipeline = SequentialAgent[None]("pipeline").then(first).then(second)
    outcome = on_temporal(temporal_address, [pipeline], "pipeline", "go")
    assert outcome.events == trio_events(pipeline, "go")
    assert outcome.result.output == "saw: first said alpha"
    assert outcome.result.usage.input_tokens == 20


def test_parallel_branches_merge_as_on_trio(temporal_address: str) -> None:
    fan = ParallelAgent[None]("fan").add(_llm("a", reply("from a"))).add(_llm("b", reply("from b")))
    outcome = on_temporal(temporal_address, [fan], "fan", "go")
    expected = trio_events(fan, "go")
    assert outcome.events[-2:] == expected[-2:]
    # Interleaving may differ (so may the re-announcements it needs); the events themselves may not.
    assert sorted(_unannounced(outcome.events)) == sorted(_unannounced(expected))
    assert outcome.result.output == '{"a":"from a","b":"from b"}'
    # Every event after the start belongs to the agent announced last before it.
    assert isinstance(outcome.events[1], AgentUpdated)
    assert outcome.events[-3] == AgentUpdated("fan")  # the merged message is the workflow's own


def _unannounced(events: tuple[AgentEvent, ...]) -> list[str]:
    return [to_json(e) for e in events if not isinstance(e, AgentUpdated)]


@function_tool
async def approve(ctx: ToolContext[None]) -> str:
    """Accept the draft."""
    ctx.actions.escalate()
    return "approved"


def test_a_loop_stops_when_a_tool_escalates(temporal_address: str) -> None:
    drafter = _llm("drafter", reply("draft 1"), reply("draft 2"))
    critic = _llm("critic", reply("needs work"), call_tools(call("approve")), reply("approved"), tools=(approve,))
    loop = LoopAgent[None]("refine", max_iterations=5).then(drafter).then(critic)
    outcome = on_temporal(temporal_address, [loop], "refine", "write")
    assert outcome.events == trio_events(loop, "write")
    assert isinstance(outcome.events[-1], RunCompleted)
    assert outcome.result.output == "approved"


def test_a_loop_without_an_escalation_runs_out_of_passes(temporal_address: str) -> None:
    loop = LoopAgent[None]("spin", max_iterations=2).then(_llm("step", reply("one"), reply("two")))
    outcome = on_temporal(temporal_address, [loop], "spin", "go")
    assert outcome.events == trio_events(loop, "go")
    assert outcome.events[-1] == RunFailed(MaxIterationsExceeded(2))


def test_the_state_a_tool_writes_reaches_the_next_step(temporal_address: str) -> None:
    @function_tool
    async def note(ctx: ToolContext[None], text: str) -> str:
        """Write a note."""
        ctx.run.state.set("note", text)
        return "noted"

    writer = _llm("writer", call_tools(call("note", text="remember me")), reply("ok"), tools=(note,))
    reader = LlmAgent[None](name="reader", model=FunctionModel(_echo_instructions), instructions=_note_instructions)
    pipeline = SequentialAgent[None]("notes").then(writer).then(reader)
    outcome = on_temporal(temporal_address, [pipeline], "notes", "go")
    assert outcome.events == trio_events(pipeline, "go")
    assert outcome.result.output == "saw: note: remember me"


def _note_instructions(ctx: RunContext[None]) -> str:
    return f"note: {ctx.state.get('note')}"


def test_a_swarm_hands_through_its_mesh_until_a_member_answers(temporal_address: str) -> None:
    front = _llm("front", call_tools(call("transfer_to_expert")), reply("unused"))
    expert = _llm("expert", reply("the answer"))
    swarm = SwarmAgent.builder().name("desk").member(front).member(expert).build()
    outcome = on_temporal(temporal_address, [swarm], "desk", "question")
    assert outcome.events == trio_events(swarm, "question")
    assert outcome.result.output == "the answer"


def test_a_swarm_over_its_handoff_budget_fails(temporal_address: str) -> None:
    ping = _llm("ping", call_tools(call("transfer_to_pong")), call_tools(call("transfer_to_pong")))
    pong = _llm("pong", call_tools(call("transfer_to_ping")), call_tools(call("transfer_to_ping")))
    swarm = SwarmAgent.builder().name("rally").member(ping).member(pong).max_handoffs(2).build()
    outcome = on_temporal(temporal_address, [swarm], "rally", "go")
    assert outcome.events == trio_events(swarm, "go")
    assert outcome.events[-1] == RunFailed(MaxHandoffsExceeded(2))


def test_a_swarm_calls_no_model_past_its_handoff_budget_on_either_runner(temporal_address: str) -> None:
    """A swarm that hands off forever with a budget of 3 asks its members' models 4 times, on Temporal and on trio."""
    calls: list[str] = []

    def member(name: str, other: str) -> LlmAgent[None]:
        def turn(request: ModelRequest) -> ScriptedTurn:
            calls.append(name)
            return call_tools(call(f"transfer_to_{other}"))

        return LlmAgent(name=name, model=FunctionModel(turn))

    swarm = SwarmAgent.builder().name("forever").member(member("ping", "pong")).member(member("pong", "ping"))
    built = swarm.max_handoffs(3).build()
    outcome = on_temporal(temporal_address, [built], "forever", "go")
    on_temporal_calls = len(calls)
    assert outcome.events == trio_events(built, "go")
    assert outcome.events[-1] == RunFailed(MaxHandoffsExceeded(3))
    assert (on_temporal_calls, len(calls)) == (4, 8)


def test_a_graph_runs_its_wavefront_with_nodes_as_child_workflows(temporal_address: str) -> None:
    seen: list[ModelRequest] = []

    def d_turn(request: ModelRequest) -> ScriptedTurn:
        seen.append(request)
        return reply("D")

    graph = (
        GraphAgent.builder()
        .name("diamond")
        .node("a", _llm("a", reply("A")))
        .node("b", _llm("b", reply("B")))
        .node("c", _llm("c", reply("C")))
        .node("d", LlmAgent[None](name="d", model=FunctionModel(d_turn)))
        .edge("a", "b")
        .edge("a", "c")
        .edge("b", "d")
        .edge("c", "d")
        .build()
    )
    outcome = on_temporal(temporal_address, [graph], "diamond", "go")
    temporal_input = seen[-1].items
    expected = trio_events(graph, "go")
    assert sorted(_unannounced(outcome.events)) == sorted(_unannounced(expected))
    assert outcome.events[-3:] == expected[-3:]
    assert outcome.events[-3] == AgentUpdated("diamond")  # the merged message is the workflow's own
    assert outcome.result.output == "D"
    assert tuple(temporal_input) == tuple(seen[-1].items)  # d read both predecessors, as on trio
    assert [getattr(item, "text", "") for item in temporal_input] == ["go", "[b]\nB", "[c]\nC"]
    assert len(outcome.histories) == 5  # the graph's and one per node, all replayed


def test_a_failed_graph_node_skips_its_descendants(temporal_address: str) -> None:
    graph = (
        GraphAgent.builder()
        .name("broken")
        .node("a", _llm("a", fail(ModelFailureKind.REFUSED)))
        .node("b", _llm("b", reply("B")))
        .node("c", _llm("c", reply("C")))
        .edge("a", "b")
        .build()
    )
    outcome = on_temporal(temporal_address, [graph], "broken", "go")
    terminal = outcome.events[-1]
    assert isinstance(terminal, RunFailed) and isinstance(terminal.error, GraphFailed)
    assert terminal == trio_events(graph, "go")[-1]
    assert terminal.error.skipped == ("b",)


def test_a_handoff_whose_target_cannot_be_resolved_fails_the_run(temporal_address: str) -> None:
    def broken() -> LlmAgent[None]:
        raise RuntimeError("no such agent today")

    triage = _llm(
        "triage",
        call_tools(call("transfer_to_billing")),
        handoffs=[Handoff(agent_name="billing", description="", resolve=broken)],
    )
    outcome = on_temporal(temporal_address, [triage], "triage", "refund please")
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunFailed)
    assert "no such agent today" in str(terminal.error)
    assert outcome.events[-1] == terminal
