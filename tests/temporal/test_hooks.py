"""Hooks and guardrails on Temporal: the user code runs in activities, with the trio runner's firing order and effects.

Each scenario runs once on Temporal and once on the trio runner (the simulator), with the same agent
definition: the events (deltas aside), the answer and the order the hooks fired in must be equal.
Before, a worker refused agents with hooks or guardrails.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.control.control_fakes import logging_hook, lookup_tool, timed_guardrail

from helikon_fc import AgentAsTool, Handoff, LlmAgent
from helikon_fc.core import (
    GuardrailTriggered,
    HookDenied,
    HookFailed,
    ModelRequest,
    RunCompleted,
    RunFailed,
    SystemMessage,
    ToolResult,
)
from helikon_fc.shell.control.guardrails import GuardrailVerdict, Pass, Tripwire
from helikon_fc.shell.control.hooks import (
    Deny,
    HookDecision,
    HookPoint,
    InjectSystemMessage,
    OnHandoff,
    OnRunStart,
    OnTurnStart,
    PostToolUse,
    PreToolUse,
    ReplaceInput,
    ReplaceOutput,
)
from helikon_fc.testing import FunctionModel, call, call_tools, reply, simulate
from helikon_fc.testing.script import ScriptedTurn

from .harness import Outcome, on_temporal, without_deltas


def _lookup_model(requests: list[ModelRequest]) -> FunctionModel:
    """Calls ``lookup(key="k")`` once, then answers with the tool's output (the requests it saw kept)."""

    def turn(request: ModelRequest) -> ScriptedTurn:
        requests.append(request)
        results = [item for item in request.items if isinstance(item, ToolResult)]
        return reply(f"got {results[0].output}") if results else call_tools(call("lookup", key="k").with_id("c1"))

    return FunctionModel(turn)


Build = Callable[[list[str], list[str], list[ModelRequest]], LlmAgent[None]]


def _both(temporal_address: str, build: Build) -> tuple[Outcome, list[str], list[str], list[ModelRequest]]:
    """Run `build`'s agent on Temporal and on trio; check they agree; the Temporal outcome and its logs."""
    log, calls, requests = [], [], []  # type: ignore[var-annotated]
    agent = build(log, calls, requests)
    outcome = on_temporal(temporal_address, [agent], agent.name, "hi")
    trio_log, trio_calls, trio_requests = [], [], []  # type: ignore[var-annotated]
    trio = simulate(build(trio_log, trio_calls, trio_requests), "hi")
    assert outcome.events == without_deltas(trio.events)
    assert (log, calls) == (trio_log, trio_calls)
    assert [r.items for r in requests] == [r.items for r in trio_requests]
    return outcome, log, calls, requests


def _inject_and_replace(point: HookPoint) -> HookDecision | None:
    match point:
        case OnRunStart():
            return InjectSystemMessage("from run start")
        case OnTurnStart(turn=turn):
            return InjectSystemMessage(f"from turn {turn}")
        case PreToolUse():
            return ReplaceInput({"key": "replaced"})
        case PostToolUse():
            return ReplaceOutput("rewritten")
    return None


def test_every_point_fires_in_order_with_its_effects(temporal_address: str) -> None:
    """Run start, turn starts, pre and post tool use, run complete; injections reach the next request only,
    the replaced input is what the tool ran on, the replaced output what the model read."""

    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        hook = logging_hook(log, "h", _inject_and_replace)
        return LlmAgent(name="a", model=_lookup_model(requests), tools=[lookup_tool(calls)], hooks=[hook])

    outcome, log, calls, requests = _both(temporal_address, build)
    points = ["run_start:a", "turn_start:0", "pre:lookup", "post:lookup", "turn_start:1", "run_complete:a"]
    assert log == [f"h:{point}" for point in points]
    assert calls == ["replaced"]
    assert outcome.result.output == "got rewritten"
    first = requests[0].items
    assert [i.text for i in first if isinstance(i, SystemMessage)][-2:] == ["from run start", "from turn 0"]
    assert not any(isinstance(i, SystemMessage) and i.text == "from run start" for i in requests[1].items)


def test_a_deny_at_turn_start_stops_the_run_there(temporal_address: str) -> None:
    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        deny = logging_hook(log, "h", lambda p: Deny("one turn only") if p == OnTurnStart(1) else None)
        return LlmAgent(name="a", model=_lookup_model(requests), tools=[lookup_tool(calls)], hooks=[deny])

    outcome, _, _, requests = _both(temporal_address, build)
    assert outcome.result.terminal == RunFailed(HookDenied("on_turn_start", "one turn only"))
    assert len(requests) == 1


def test_a_deny_at_run_start_makes_no_model_call(temporal_address: str) -> None:
    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        deny = logging_hook(log, "h", lambda p: Deny("closed") if isinstance(p, OnRunStart) else None)
        return LlmAgent(name="a", model=_lookup_model(requests), tools=[lookup_tool(calls)], hooks=[deny])

    outcome, log, _, requests = _both(temporal_address, build)
    assert outcome.result.terminal == RunFailed(HookDenied("on_run_start", "closed"))
    assert requests == [] and log == ["h:run_start:a"]


def test_a_raising_tool_hook_fails_the_run_with_hook_failed(temporal_address: str) -> None:
    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        async def boom(ctx: object, point: HookPoint) -> HookDecision | None:
            if isinstance(point, PreToolUse):
                raise RuntimeError("hook broke")
            return None

        return LlmAgent(name="a", model=_lookup_model(requests), tools=[lookup_tool(calls)], hooks=[boom])

    outcome, _, calls, _ = _both(temporal_address, build)
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunFailed) and isinstance(terminal.error, HookFailed)
    assert calls == []


def test_a_denied_handoff_keeps_the_events_before_it(temporal_address: str) -> None:
    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        billing = LlmAgent[None](name="billing", model=FunctionModel(lambda r: reply("billing here")))
        deny = logging_hook(log, "h", lambda p: Deny("stay") if isinstance(p, OnHandoff) else None)
        model = FunctionModel(lambda r: call_tools(call("transfer_to_billing").with_id("h1")))
        return LlmAgent(name="triage", model=model, handoffs=[Handoff.to(billing)], hooks=[deny])

    outcome, log, _, _ = _both(temporal_address, build)
    assert outcome.result.terminal == RunFailed(HookDenied("on_handoff", "stay"))
    assert "h:handoff:triage->billing" in log


def test_an_output_guardrail_trip_replaces_the_answer(temporal_address: str) -> None:
    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        trip: GuardrailVerdict = Tripwire("output_policy", {"why": "rude"})
        return LlmAgent(
            name="a",
            model=FunctionModel(lambda r: reply("you fool")),
            output_guardrails=[timed_guardrail("polite", 0, trip, log)],
        )

    outcome, log, _, _ = _both(temporal_address, build)
    assert isinstance(outcome.events[-2], GuardrailTriggered)
    assert log == ["polite:you fool"]
    assert outcome.result.output == ""


def test_an_input_guardrail_trip_runs_no_tool_and_delivers_nothing_of_the_call(temporal_address: str) -> None:
    """The first model call asks for a tool; the input guardrail trips (later): the tool never runs."""

    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        trip: GuardrailVerdict = Tripwire("input_policy", "no")
        return LlmAgent(
            name="a",
            model=_lookup_model(requests),
            tools=[lookup_tool(calls)],
            input_guardrails=[timed_guardrail("slow", 0.5, trip, log)],
        )

    outcome, _, calls, _ = _both(temporal_address, build)
    assert calls == []
    assert isinstance(outcome.result.terminal, RunFailed)
    assert [type(e).__name__ for e in outcome.streamed] == [
        "RunStarted",
        "TurnStarted",
        "GuardrailTriggered",
        "RunFailed",
    ]


def test_a_passing_input_guardrail_lets_the_run_go_on(temporal_address: str) -> None:
    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        return LlmAgent(
            name="a",
            model=_lookup_model(requests),
            tools=[lookup_tool(calls)],
            input_guardrails=[timed_guardrail("ok", 0.2, Pass(), log)],
        )

    outcome, log, calls, _ = _both(temporal_address, build)
    assert isinstance(outcome.result.terminal, RunCompleted)
    assert calls == ["k"] and log == ["ok:hi"]


def test_an_agent_as_tool_call_goes_through_the_callers_tool_hooks(temporal_address: str) -> None:
    """PreToolUse replaces the input of an `AgentAsTool` call (a child workflow) and PostToolUse its output."""

    def build(log: list[str], calls: list[str], requests: list[ModelRequest]) -> LlmAgent[None]:
        def echo(request: ModelRequest) -> ScriptedTurn:
            requests.append(request)
            return reply(f"helper read {request.items[-1].text}")  # type: ignore[union-attr]

        helper = LlmAgent[None](name="helper", model=FunctionModel(echo))

        def answer(point: HookPoint) -> HookDecision | None:
            if isinstance(point, PreToolUse):
                return ReplaceInput({"input": "replaced"})
            if isinstance(point, PostToolUse):
                return ReplaceOutput(f"post saw: {point.output}")
            return None

        def lead_turn(request: ModelRequest) -> ScriptedTurn:
            results = [i for i in request.items if isinstance(i, ToolResult)]
            return reply(results[0].output) if results else call_tools(call("helper", input="original").with_id("t1"))

        hook = logging_hook(log, "h", answer)
        return LlmAgent(name="lead", model=FunctionModel(lead_turn), tools=[AgentAsTool(helper)], hooks=[hook])

    outcome, log, _, _ = _both(temporal_address, build)
    assert outcome.result.output == "post saw: helper read replaced"
    assert "h:pre:helper" in log and "h:post:helper" in log
