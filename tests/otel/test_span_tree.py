"""The span tree of every pattern, traced with OpenTelemetry's SDK into an in-memory exporter."""

from __future__ import annotations

from typing import Any

import trio
from tests.otel.spans import named, traced, tree

from helikon_fc import (
    AgentAsTool,
    GraphAgent,
    Handoff,
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    RunConfig,
    RunContext,
    SequentialAgent,
    SwarmAgent,
    ToolContext,
    ToolError,
    function_tool,
)
from helikon_fc.core import Cancelled, ModelFailureKind, TimedOut, ToolCallItem, Usage
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, fail, reply, simulate

U = Usage(input_tokens=7, output_tokens=3, requests=1)


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


@function_tool
async def slow(ctx: ToolContext[Any], seconds: float) -> str:
    """Wait.

    Args:
        seconds: How long.
    """
    await trio.sleep(seconds)
    return "done"


def agent(name: str, *turns: ScriptedTurn, **options: Any) -> LlmAgent[None]:
    return LlmAgent(
        name=name, model=ScriptedModel(turns or (reply(f"{name} done", usage=U),), name=f"m-{name}"), **options
    )


def run(target: Any, **options: Any) -> tuple[Any, list[str], list[Any]]:
    tracer, exporter = traced()
    sim = simulate(target, "go", RunContext(None, tracer=tracer), **options)
    spans = list(exporter.get_finished_spans())
    return sim, tree(spans), spans


def test_llm_agent_with_parallel_tools_chat_and_tool_spans_under_the_run() -> None:
    """Two calls of one turn are sibling `execute_tool` spans between the two `chat` spans."""
    calc = agent(
        "calc",
        call_tools(call("add", a=1, b=2), call("add", a=3, b=4), usage=U),
        reply("3 and 7", usage=U),
        tools=[add],
    )
    sim, lines, spans = run(calc)
    assert sim.error is None
    assert lines == [
        "invoke_agent calc",
        "  chat m-calc",
        "  execute_tool add",
        "  execute_tool add",
        "  chat m-calc",
    ]
    top = named(spans, "invoke_agent calc")[0]
    assert top.attributes is not None
    assert top.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert top.attributes["gen_ai.agent.name"] == "calc"
    assert (top.attributes["gen_ai.usage.input_tokens"], top.attributes["gen_ai.usage.output_tokens"]) == (14, 6)
    chat = named(spans, "chat m-calc")[0]
    assert chat.attributes is not None
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.request.model"] == "m-calc"
    assert chat.attributes["gen_ai.provider.name"] == "helikon_fc.testing"
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert (chat.attributes["gen_ai.usage.input_tokens"], chat.attributes["gen_ai.usage.output_tokens"]) == (7, 3)
    assert chat.kind.name == "CLIENT"
    tools = named(spans, "execute_tool add")
    call_ids = {event.item.call_id for event in sim.events if isinstance(event, ToolCallItem)}
    assert len(call_ids) == 2
    assert {span.attributes["gen_ai.tool.call.id"] for span in tools if span.attributes} == call_ids
    assert all(span.attributes and span.attributes["gen_ai.tool.name"] == "add" for span in tools)
    assert all(span.status.is_ok for span in spans)
    assert all("error.type" not in (span.attributes or {}) for span in spans)


@function_tool
def refuse() -> str:
    """Always fails."""
    raise ToolError("not today")


def test_a_failing_tool_is_an_error_span_and_the_run_goes_on() -> None:
    """The model reads the failure and answers: only the tool's span is an error."""
    moody = agent("moody", call_tools(call("refuse")), reply("ok"), tools=[refuse])
    sim, lines, spans = run(moody)
    assert sim.error is None
    assert lines == ["invoke_agent moody", "  chat m-moody", "  execute_tool refuse !tool_error", "  chat m-moody"]
    failed = named(spans, "execute_tool refuse")[0]
    assert failed.status.status_code.name == "ERROR"
    assert failed.status.description == "not today"
    assert named(spans, "invoke_agent moody")[0].status.status_code.name == "UNSET"


def test_a_handoff_target_runs_as_a_child_of_the_agent_that_handed_off() -> None:
    billing = agent("billing")
    triage = agent("triage", call_tools(call("transfer_to_billing")), handoffs=[Handoff.to(billing)])
    sim, lines, _ = run(triage)
    assert sim.error is None
    assert lines == ["invoke_agent triage", "  chat m-triage", "  invoke_agent billing", "    chat m-billing"]


def test_an_agent_as_tool_sub_run_is_a_child_of_its_tool_span() -> None:
    """The seed: the tracer crosses the isolated context of an `AgentAsTool` sub-run."""
    summarizer = agent("summarizer")
    writer = agent("writer", call_tools(call("summarizer", input="text")), reply("ok"), tools=[AgentAsTool(summarizer)])
    sim, lines, _ = run(writer)
    assert sim.error is None
    assert lines == [
        "invoke_agent writer",
        "  chat m-writer",
        "  execute_tool summarizer",
        "    invoke_agent summarizer",
        "      chat m-summarizer",
        "  chat m-writer",
    ]


def test_sequential_steps_are_children_in_order() -> None:
    pipeline = SequentialAgent[None]("pipeline", "Two steps.").then(agent("a")).then(agent("b"))
    _, lines, _ = run(pipeline)
    assert lines == ["invoke_agent pipeline", "  invoke_agent a", "    chat m-a", "  invoke_agent b", "    chat m-b"]


def test_parallel_branches_are_siblings() -> None:
    fan = ParallelAgent[None]("fan", "Both at once.").add(agent("a")).add(agent("b"))
    _, lines, spans = run(fan)
    assert lines[0] == "invoke_agent fan"
    assert sorted(lines[1:]) == sorted(["  invoke_agent a", "    chat m-a", "  invoke_agent b", "    chat m-b"])
    top = named(spans, "invoke_agent fan")[0]
    assert top.context is not None
    for branch in ("a", "b"):
        span = named(spans, f"invoke_agent {branch}")[0]
        assert span.parent is not None and span.parent.span_id == top.context.span_id


def test_loop_iterations_are_children() -> None:
    loop = LoopAgent[None]("loop", "Twice.", 2).then(agent("step", reply("one"), reply("two")))
    _, lines, _ = run(loop)
    assert lines == [
        "invoke_agent loop !max_iterations_exceeded",
        "  invoke_agent step",
        "    chat m-step",
        "  invoke_agent step",
        "    chat m-step",
    ]


def test_a_failed_graph_node_marks_its_span_its_chat_and_the_graph() -> None:
    graph = (
        GraphAgent[None]
        .builder()
        .name("report")
        .node("spending", agent("spending"))
        .node("income", agent("income", fail(ModelFailureKind.UNAVAILABLE)))
        .node("summary", agent("summary"))
        .edge("spending", "summary")
        .edge("income", "summary")
        .build()
    )
    sim, lines, spans = run(graph)
    assert sim.error is not None
    assert lines[0] == "invoke_agent report !graph_failed"
    assert "  invoke_agent income !model_failed" in lines
    assert "    chat m-income !unavailable" in lines
    assert "  invoke_agent summary" not in lines
    income = named(spans, "invoke_agent income")[0]
    assert income.status.status_code.name == "ERROR"
    assert income.status.description is not None and "unavailable" in income.status.description.lower()


def test_a_swarm_member_handing_off_is_nested_under_the_swarm_run() -> None:
    triage = agent("triage", call_tools(call("transfer_to_budget")))
    swarm = SwarmAgent[None].builder().name("desk").member(triage).member(agent("budget")).build()
    sim, lines, _ = run(swarm)
    assert sim.error is None
    assert lines[0] == "invoke_agent desk"
    assert "  invoke_agent triage" in lines
    assert any(line.strip() == "invoke_agent budget" for line in lines)
    assert lines.index("  invoke_agent triage") < [line.strip() for line in lines].index("invoke_agent budget")


def test_a_model_failure_is_an_error_on_the_chat_span_and_the_run() -> None:
    broken = agent("broken", fail(ModelFailureKind.RATE_LIMITED))
    sim, lines, spans = run(broken)
    assert sim.error is not None
    assert lines == ["invoke_agent broken !model_failed", "  chat m-broken !rate_limited"]
    assert all(span.status.status_code.name == "ERROR" for span in spans)


@function_tool
async def stop(ctx: ToolContext[Any]) -> str:
    """Cancel the run from inside, then keep working."""
    ctx.run.cancel("user pressed stop")
    await trio.sleep(5)
    return "never"


def test_a_cancelled_run_ends_its_open_spans_as_cancelled() -> None:
    stopper = agent("stopper", call_tools(call("stop")), reply("never"), tools=[stop])
    sim, lines, spans = run(stopper)
    assert isinstance(sim.error, Cancelled)
    assert lines == ["invoke_agent stopper !cancelled", "  chat m-stopper", "  execute_tool stop !cancelled"]
    assert named(spans, "execute_tool stop")[0].status.status_code.name == "ERROR"


def test_a_timed_out_run_ends_its_open_spans_as_timeouts() -> None:
    sleepy = agent("sleepy", call_tools(call("slow", seconds=10)), reply("late"), tools=[slow])
    sim, lines, _ = run(sleepy, config=RunConfig(timeout=2))
    assert isinstance(sim.error, TimedOut)
    assert lines == ["invoke_agent sleepy !timeout", "  chat m-sleepy", "  execute_tool slow !timeout"]


def test_a_model_call_cut_by_a_timeout_is_a_timeout() -> None:
    sleepy = agent("sleepy", reply("late", latency=10))
    sim, lines, _ = run(sleepy, config=RunConfig(timeout=2))
    assert isinstance(sim.error, TimedOut)
    assert lines == ["invoke_agent sleepy !timeout", "  chat m-sleepy !timeout"]
