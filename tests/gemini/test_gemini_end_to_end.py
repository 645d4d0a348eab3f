"""End to end: agents with a tool, a handoff and structured output run on `GeminiModel` over HTTP.

The run's items are what the streamed deltas said (the conformance rule: the aggregated items equal
the deltas), the tool's result and the thought signature go back on the next turn, the reporter's
turn asks for its JSON schema with ``responseJsonSchema``, and an answer that does not fit the schema
is repaired once, as with every provider.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
from tests.gemini.conftest import API_KEY
from tests.gemini.gemini_wire import GeminiServer

from helikon_fc import (
    AgentInput,
    Handoff,
    LlmAgent,
    RunContext,
    RunResultStreaming,
    function_tool,
)
from helikon_fc.core import RunCompleted, TokenDelta, ToolCallItem, ToolOutputItem, Usage
from helikon_fc.gemini import GeminiModel

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


def agents(server: GeminiServer) -> LlmAgent[Any]:
    model = GeminiModel("gemini-2.5-flash", api_key=API_KEY, base_url=server.base_url)
    reporter = LlmAgent(
        name="reporter",
        model=model,
        description="Files weather reports.",
        instructions="Write the report as JSON.",
        output_type=WeatherReport,
    )
    return LlmAgent(
        name="triage",
        model=model,
        instructions="Look the weather up, then hand over to the reporter.",
        tools=[get_weather],
        handoffs=[Handoff.to(reporter)],
    )


async def run(server: GeminiServer, *turns: str) -> tuple[WeatherReport, list[Any], list[dict[str, Any]]]:
    for turn in turns:
        server.enqueue(turn)
    result = await RunResultStreaming(
        agents(server).run(RunContext.ephemeral(None), AgentInput.from_user_text(QUESTION))
    ).collect_typed(WeatherReport)
    return result.final_output, list(result.events), [dict(request.body) for request in server.requests]


async def test_a_tool_a_handoff_and_a_typed_report(gemini: GeminiServer) -> None:
    """The run completes with the typed report; its items and usage are what the three streams said."""
    report, events, bodies = await run(gemini, "e2e_triage_weather", "e2e_triage_handoff", "e2e_reporter_report")
    assert report == WeatherReport("Paris", 18, "Sunny and mild")
    calls = [(e.item.call_id, e.item.name, e.item.arguments) for e in events if isinstance(e, ToolCallItem)]
    assert calls == [("call_w1", "get_weather", '{"city":"Paris"}'), ("call_h1", "transfer_to_reporter", "{}")]
    outputs = [e.item.output for e in events if isinstance(e, ToolOutputItem)]
    assert outputs[0] == "Paris: 18C, sunny"
    streamed = "".join(e.text for e in events if isinstance(e, TokenDelta))
    assert json.loads(streamed) == {"city": "Paris", "temp_c": 18, "summary": "Sunny and mild"}
    (completed,) = [e for e in events if isinstance(e, RunCompleted)]
    assert completed.usage == Usage(input_tokens=60, output_tokens=14, requests=3)

    second, third = bodies[1], bodies[2]
    model_turn, results = second["contents"][1], second["contents"][2]
    assert model_turn["parts"] == [
        {
            "functionCall": {"id": "call_w1", "name": "get_weather", "args": {"city": "Paris"}},
            "thoughtSignature": "c2lnLXcx",
        }
    ]
    assert results["parts"] == [
        {"functionResponse": {"id": "call_w1", "name": "get_weather", "response": {"output": "Paris: 18C, sunny"}}}
    ]
    config = third["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert set(config["responseJsonSchema"]["required"]) == {"city", "temp_c", "summary"}
    assert "tools" not in third


async def test_an_answer_that_does_not_fit_the_schema_is_repaired_once(gemini: GeminiServer) -> None:
    """A report without its summary is sent back with what is wrong, under the same schema; the second answer
    is the run's output."""
    report, _, bodies = await run(
        gemini, "e2e_triage_weather", "e2e_triage_handoff", "e2e_reporter_incomplete", "e2e_reporter_report"
    )
    assert report == WeatherReport("Paris", 18, "Sunny and mild")
    repair = bodies[3]
    assert repair["generationConfig"]["responseJsonSchema"] == bodies[2]["generationConfig"]["responseJsonSchema"]
    sent_back = json.dumps(repair["contents"])
    assert '{\\"city\\": \\"Paris\\", \\"temp_c\\": 18}' in sent_back
    assert "summary" in json.dumps(repair["contents"][-1])
