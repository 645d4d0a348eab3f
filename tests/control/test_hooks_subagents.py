"""`OnSubagentStop` in every pattern that starts a sub-agent, and the seed's "empty hooks" for AgentAsTool
sub-runs (original-notes sections 3.2 and 8; seed-multi-agent-patterns)."""

from __future__ import annotations

import trio
import trio.testing
from tests.control.control_fakes import logging_hook, lookup_tool

from helikon_fc import (
    AgentAsTool,
    GraphAgent,
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    RunContext,
    SequentialAgent,
    SwarmAgent,
)
from helikon_fc.core import HookFailed, ModelRequest, ToolResult
from helikon_fc.shell.control.hooks import HookDecision, HookPoint, OnSubagentStop
from helikon_fc.testing import FunctionModel, ScriptedModel, call, call_tools, fail, reply, run_simulated
from helikon_fc.testing.script import ScriptedTurn


def _answering(name: str, text: str = "done") -> LlmAgent[None]:
    return LlmAgent(name=name, model=FunctionModel(lambda request: reply(f"{text} by {name}")))


def _stops(log: list[str]) -> list[str]:
    return [entry.removeprefix("run:subagent_stop:") for entry in log if "subagent_stop" in entry]


def _hooked(log: list[str]) -> RunContext[None]:
    return RunContext.ephemeral(None).with_hooks(logging_hook(log, "run"))


async def test_each_sequential_step_reports_its_stop(autojump_clock: trio.testing.MockClock) -> None:
    """Section 8: OnSubagentStop fires "after each workflow child"."""
    log: list[str] = []
    workflow = SequentialAgent("pipeline").then(_answering("research")).then(_answering("write"))
    sim = await run_simulated(workflow, "go", _hooked(log))
    assert sim.result is not None and _stops(log) == ["research", "write"]


async def test_a_failed_workflow_child_reports_its_stop_too(autojump_clock: trio.testing.MockClock) -> None:
    """A child that fails still stops (the sequence then fails fast)."""
    log: list[str] = []
    failing = LlmAgent(name="flaky", model=ScriptedModel([fail("boom")]))
    sim = await run_simulated(SequentialAgent("p").then(failing).then(_answering("never")), "go", _hooked(log))
    assert sim.error is not None and _stops(log) == ["flaky"]


async def test_each_parallel_branch_and_graph_node_reports_its_stop(autojump_clock: trio.testing.MockClock) -> None:
    """Parallel branches and graph nodes are workflow children: one stop each."""
    log: list[str] = []
    parallel = ParallelAgent("fan").add(_answering("left")).add(_answering("right"))
    await run_simulated(parallel, "go", _hooked(log))
    assert sorted(_stops(log)) == ["left", "right"]
    log.clear()
    graph = (
        GraphAgent.builder()
        .name("g")
        .node("a", _answering("a"))
        .node("b", _answering("b"))
        .node("c", _answering("c"))
        .edge("a", "c")
        .edge("b", "c")
        .build()
    )
    sim = await run_simulated(graph, "go", _hooked(log))
    assert sim.result is not None and sorted(_stops(log)) == ["a", "b", "c"] and _stops(log)[-1] == "c"


async def test_each_loop_pass_reports_each_step(autojump_clock: trio.testing.MockClock) -> None:
    """A loop's steps are workflow children on every pass."""
    log: list[str] = []
    loop = LoopAgent("refine", max_iterations=2).then(_answering("draft")).then(_answering("review"))
    await run_simulated(loop, "go", _hooked(log))
    assert _stops(log) == ["draft", "review", "draft", "review"]


async def test_a_swarm_reports_its_handoff_and_its_entry(autojump_clock: trio.testing.MockClock) -> None:
    """Section 8: a handoff child's stop fires after its stream ends, then the entry (a workflow child) stops."""
    log: list[str] = []
    front = LlmAgent(name="front", model=ScriptedModel([call_tools(call("transfer_to_billing"))]))
    swarm = SwarmAgent.builder().name("desk").member(front).member(_answering("billing")).entry("front").build()
    sim = await run_simulated(swarm, "refund", _hooked(log))
    assert sim.result is not None and _stops(log) == ["billing", "front"]


def _caller(inner: LlmAgent[None], calls: list[str] | None = None) -> LlmAgent[None]:
    def turn(request: ModelRequest) -> ScriptedTurn:
        results = [item for item in request.items if isinstance(item, ToolResult)]
        return reply(f"inner said {results[0].output}") if results else call_tools(call("inner", input="q"))

    tools = [AgentAsTool(inner)] if calls is None else [AgentAsTool(inner), lookup_tool(calls)]
    return LlmAgent(name="caller", model=FunctionModel(turn), tools=tools)


async def test_an_agent_as_tool_sub_run_gets_empty_hooks_and_its_caller_sees_the_stop(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seed: the sub-run "gets ... empty hooks"; section 3.2: AgentAsTool "fires OnSubagentStop on the parent's
    RUN-level registry only": the run hooks never see the sub-run's own points, the wrapped agent's own hooks do."""
    log: list[str] = []
    inner_calls: list[str] = []
    inner = LlmAgent(
        name="inner",
        model=ScriptedModel([call_tools(call("lookup", key="x")), reply("42")]),
        tools=[lookup_tool(inner_calls)],
        hooks=[logging_hook(log, "inner-own")],
    )
    sim = await run_simulated(_caller(inner), "question", _hooked(log))
    assert sim.result is not None and sim.result.final_output == "inner said 42" and inner_calls == ["x"]
    run_points = [entry for entry in log if entry.startswith("run:")]
    assert run_points == [
        "run:run_start:caller", "run:turn_start:0", "run:pre:inner",
        "run:subagent_stop:inner",
        "run:post:inner", "run:turn_start:1", "run:run_complete:caller",
    ]  # fmt: skip
    assert "inner-own:pre:lookup" in log and "inner-own:run_complete:inner" in log


async def test_a_failed_agent_as_tool_sub_run_still_reports_its_stop(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: AgentAsTool fires OnSubagentStop "even on failure"."""
    log: list[str] = []
    inner = LlmAgent(name="inner", model=ScriptedModel([fail("down")]))
    sim = await run_simulated(_caller(inner), "q", _hooked(log))
    assert sim.result is not None and _stops(log) == ["inner"]


async def test_a_raising_subagent_stop_hook_fails_the_run_that_started_the_child(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Issue 11: a hook that raises fails the run with HookFailed — for a workflow and for an agent-as-tool's
    caller alike (not a tool error the model reads)."""

    async def raising(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        if isinstance(point, OnSubagentStop):
            raise RuntimeError("metrics down")
        return None

    ctx = RunContext.ephemeral(None).with_hooks(raising)
    expected = HookFailed("on_subagent_stop", "RuntimeError: metrics down")
    sim = await run_simulated(SequentialAgent("p").then(_answering("one")).then(_answering("two")), "go", ctx)
    assert sim.error == expected
    assert sum(1 for e in sim.events if type(e).__name__ == "MessageOutput") == 1  # step two never ran
    sim = await run_simulated(_caller(_answering("inner")), "q", ctx)
    assert sim.error == expected
    parallel = ParallelAgent("fan").add(_answering("left")).add(_answering("right"))
    assert (await run_simulated(parallel, "go", ctx)).error == expected
