"""The input gate under every timing: whichever of the guardrail and the first model call finishes first, no
tool runs and nothing the model produced is delivered unless the guardrail passed (issue 11, openai-agents #991),
and the run takes only as long as the slower of the two."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st
from tests.control.control_fakes import lookup_tool, timed_guardrail

from helikon_fc import LlmAgent
from helikon_fc.core import GuardrailTripped, MessageOutput, TokenDelta, ToolCallItem
from helikon_fc.shell.control.guardrails import Pass, Tripwire
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate
from helikon_fc.testing.script import ScriptedTurn

quarters = st.integers(min_value=0, max_value=16).map(lambda n: n / 4)


@settings(max_examples=60)
@given(guard=quarters, model=quarters, trips=st.booleans(), n_calls=st.integers(min_value=1, max_value=3))
def test_no_tool_runs_and_nothing_is_delivered_before_the_gate_passes(
    guard: float, model: float, trips: bool, n_calls: int
) -> None:
    """A trip at `guard` s ends the run then, with no tool run and no model output delivered; a pass costs
    max(guard, model) s and gives the run it would have had without the guardrail."""
    calls: list[str] = []
    turns: list[ScriptedTurn] = [
        call_tools(*(call("lookup", key=f"k{i}") for i in range(n_calls)), latency=model),
        reply("all looked up"),
    ]
    verdict = Tripwire("input_policy") if trips else Pass()
    agent = LlmAgent(
        name="a",
        model=ScriptedModel(turns),
        tools=[lookup_tool(calls)],
        input_guardrails=[timed_guardrail("g", guard, verdict)],
    )
    sim = simulate(agent, "go")
    if trips:
        assert sim.error == GuardrailTripped("input_policy")
        assert calls == []
        assert not any(isinstance(e, TokenDelta | ToolCallItem | MessageOutput) for e in sim.events)
        assert sim.elapsed == guard
    else:
        plain = simulate(agent.with_model(ScriptedModel(turns)).with_input_guardrails(), "go")
        assert sim.result is not None and sim.result.final_output == "all looked up"
        assert sorted(calls) == sorted([f"k{i}" for i in range(n_calls)] * 2)  # this run, then the plain one
        assert sim.events == plain.events
        assert sim.elapsed == max(guard, model)
