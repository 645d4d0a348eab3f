"""End to end: an agent with a tool, a handoff and structured output behaves the same over HTTP as on the simulator.

The same two agents run twice: once with `ScriptedModel`s under `simulate`, once with
`OpenAIModel`s talking to the local wire server, which replays the same three turns as Chat
Completions or Responses streams. The events, the final output, the typed result and the usage
must be identical.
"""

from __future__ import annotations

import json
from typing import Any, cast

import attrs
import pytest
from tests.openai.openai_expectations import model_for
from tests.openai.openai_wire import Api, WireServer

from helikon_fc import (
    AgentInput,
    Handoff,
    LlmAgent,
    ModelFailed,
    RunContext,
    RunError,
    RunFailed,
    RunResultStreaming,
    function_tool,
)
from helikon_fc.core import ModelFailureKind
from helikon_fc.models import Model
from helikon_fc.testing import ScriptedModel, Simulation, call, call_tools, reply, simulate

REPORT_JSON = '{"city": "Paris", "temp_c": 18, "summary": "Sunny and mild"}'
QUESTION = "What's the weather in Paris? Please file a report."


@attrs.frozen
class WeatherReport:
    """The reporter's structured answer."""

    city: str
    temp_c: int
    summary: str


@function_tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: 18C, sunny"


def agents(triage_model: Model, reporter_model: Model) -> LlmAgent[Any]:
    """The triage agent (a tool and a handoff) and the reporter it hands off to (structured output)."""
    reporter = LlmAgent(
        name="reporter",
        model=reporter_model,
        description="Files weather reports.",
        instructions="Write the report as JSON.",
        output_type=WeatherReport,
    )
    return LlmAgent(
        name="triage",
        model=triage_model,
        instructions="Look the weather up, then hand over to the reporter.",
        tools=[get_weather],
        handoffs=[Handoff.to(reporter)],
    )


@pytest.fixture(scope="module")
def simulated() -> Simulation:
    """The conversation on the simulator (run once, outside trio, in virtual time)."""
    triage = ScriptedModel(
        [
            call_tools(call("get_weather", city="Paris").with_id("call_w1")),
            call_tools(call("transfer_to_reporter").with_id("call_h1")),
        ],
        name="gpt-5-mini",
    )
    reporter = ScriptedModel([reply(REPORT_JSON)], name="gpt-5-mini")
    return simulate(agents(triage, reporter), QUESTION)


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_the_wire_run_matches_the_simulated_run(api: Api, wire: WireServer, simulated: Simulation) -> None:
    """Same events in the same order, same final output, same usage, same typed report."""
    for turn in ("triage_weather", "triage_handoff", "reporter_report"):
        wire.enqueue(api, f"e2e/{turn}")
    agent = agents(model_for(api, wire), model_for(api, wire))
    run = agent.run(RunContext.ephemeral(None), AgentInput.from_user_text(QUESTION))
    result = await RunResultStreaming(run).collect()

    assert simulated.result is not None
    kinds = [type(event).__name__ for event in simulated.events]
    for kind in ("ToolCallDelta", "ToolOutputItem", "HandoffItem", "AgentUpdated", "TokenDelta", "RunCompleted"):
        assert kind in kinds
    assert result.events == simulated.events
    assert result.final_output == simulated.result.final_output
    assert result.usage == simulated.result.usage
    assert WeatherReport(**json.loads(result.final_output)) == WeatherReport("Paris", 18, "Sunny and mild")


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_the_wire_run_sends_tool_results_and_the_output_schema(api: Api, wire: WireServer) -> None:
    """Turn 2 carries the tool's result back; the reporter's turn asks for the report's strict JSON schema."""
    for turn in ("triage_weather", "triage_handoff", "reporter_report"):
        wire.enqueue(api, f"e2e/{turn}")
    agent = agents(model_for(api, wire), model_for(api, wire))
    typed = await RunResultStreaming(
        agent.run(RunContext.ephemeral(None), AgentInput.from_user_text(QUESTION))
    ).collect_typed(WeatherReport)
    assert typed.final_output == WeatherReport("Paris", 18, "Sunny and mild")

    first, second, third = (cast(dict[str, Any], request.body) for request in wire.requests)
    conversation: list[dict[str, Any]] = second["messages"] if api == "chat" else second["input"]
    results = [m for m in conversation if m.get("role") == "tool" or m.get("type") == "function_call_output"]
    assert [r.get("content", r.get("output")) for r in results] == ["Paris: 18C, sunny"]
    tool_names = {(t["function"] if api == "chat" else t)["name"] for t in first["tools"]}
    assert tool_names == {"get_weather", "transfer_to_reporter"}
    schema_holder = third["response_format"]["json_schema"] if api == "chat" else third["text"]["format"]
    assert schema_holder["strict"] is True
    assert schema_holder["schema"]["additionalProperties"] is False
    assert set(schema_holder["schema"]["required"]) == {"city", "temp_c", "summary"}
    assert "tools" not in third


@pytest.mark.parametrize(
    ("fixture", "kind", "retry_after"),
    [
        ("rate_limited_429", ModelFailureKind.RATE_LIMITED, 6.5),
        ("error_mid_stream", ModelFailureKind.UNAVAILABLE, None),
        ("truncated_before_stop", ModelFailureKind.TRANSPORT, None),
    ],
)
async def test_a_provider_failure_ends_the_run_with_a_typed_model_failure(
    fixture: str, kind: ModelFailureKind, retry_after: float | None, wire: WireServer
) -> None:
    """An HTTP 429, an error event and a cut-off body each end the run with RunFailed(ModelFailed(kind, ...))."""
    wire.enqueue("chat", fixture)
    agent = LlmAgent(name="solo", model=model_for("chat", wire))
    with pytest.raises(RunError) as raised:
        await RunResultStreaming(agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("hi"))).collect()
    error = raised.value.error
    assert isinstance(error, ModelFailed)
    assert (error.kind, error.retry_after) == (kind, retry_after)
    assert isinstance(raised.value.events[-1], RunFailed)
