"""An `LlmAgent` on `AnthropicModel` over the local Messages API server: a thinking tool loop, structured output."""

from __future__ import annotations

from typing import Any, cast

import attrs
import pytest
from tests.anthropic.anthropic_wire import AnthropicWire

from helikon_fc import (
    AgentInput,
    LlmAgent,
    ModelFailed,
    ReasoningDelta,
    RunContext,
    RunError,
    RunResultStreaming,
    TokenDelta,
    ToolCallDelta,
    function_tool,
)
from helikon_fc.anthropic import AnthropicModel
from helikon_fc.core import ModelFailureKind

THINKING = "The user wants Paris weather. I should call the tool."
SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF"


@attrs.frozen
class WeatherReport:
    """The structured answer."""

    city: str
    temp_c: int


@function_tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: 18C, sunny"


def model_for(wire: AnthropicWire, **options: Any) -> AnthropicModel:
    """A model pointed at the local server."""
    return AnthropicModel("claude-sonnet-4-5", base_url=wire.base_url, **options)


async def test_a_tool_loop_sends_the_signed_thinking_back_unchanged(messages_wire: AnthropicWire) -> None:
    """Turn 2 carries turn 1's thinking (with its signature), the redacted block and the tool_use as they came,
    then the tool's result; the streamed deltas add up to exactly what is sent back."""
    messages_wire.enqueue("thinking_tool_call")
    messages_wire.enqueue("answer_after_tools")
    agent = LlmAgent(name="weather", model=model_for(messages_wire, thinking_budget=2048), tools=[get_weather])
    result = await RunResultStreaming(
        agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("Weather in Paris?"))
    ).collect()

    assert result.final_output == "It is 18°C and sunny in Paris."
    _, second = (cast(dict[str, Any], body) for body in messages_wire.bodies())
    assistant, results = second["messages"][1], second["messages"][2]
    assert assistant == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": THINKING, "signature": SIGNATURE},
            {"type": "redacted_thinking", "data": REDACTED},
            {"type": "tool_use", "id": "toolu_01T", "name": "get_weather", "input": {"city": "Paris"}},
        ],
    }
    assert results == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_01T", "content": "Paris: 18C, sunny"}],
    }
    reasoning = "".join(event.text for event in result.events if isinstance(event, ReasoningDelta))
    arguments = "".join(event.args_delta for event in result.events if isinstance(event, ToolCallDelta))
    text = "".join(event.text for event in result.events if isinstance(event, TokenDelta))
    assert (reasoning, arguments, text) == (THINKING, '{"city": "Paris"}', result.final_output)
    usage = result.usage
    assert (usage.requests, usage.input_tokens, usage.cached_input_tokens, usage.reasoning_tokens) == (2, 157, 100, 40)


@pytest.mark.parametrize(("mode", "fixture"), [("json_schema", "json_answer"), ("tool", "answer_tool")])
async def test_structured_output_natively_or_through_a_forced_tool(
    mode: str, fixture: str, messages_wire: AnthropicWire
) -> None:
    """Either way the agent gets the JSON as the answer and decodes it; the request asks for it the chosen way."""
    messages_wire.enqueue(fixture)
    agent = LlmAgent(name="reporter", model=model_for(messages_wire, structured_output=mode), output_type=WeatherReport)
    typed = await RunResultStreaming(
        agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("Report Paris."))
    ).collect_typed(WeatherReport)
    assert typed.final_output == WeatherReport("Paris", 18)
    (body,) = (cast(dict[str, Any], body) for body in messages_wire.bodies())
    if mode == "json_schema":
        assert body["output_config"]["format"]["type"] == "json_schema"
        assert "tools" not in body
    else:
        assert body["tool_choice"] == {"type": "tool", "name": "WeatherReport"}
        assert [tool["name"] for tool in body["tools"]] == ["WeatherReport"]


async def test_a_refusal_fails_the_run_as_refused(messages_wire: AnthropicWire) -> None:
    """stop_reason refusal ends the run with ModelFailed(REFUSED), not an empty answer."""
    messages_wire.enqueue("refusal")
    agent = LlmAgent(name="solo", model=model_for(messages_wire))
    with pytest.raises(RunError) as raised:
        await RunResultStreaming(agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("hi"))).collect()
    error = raised.value.error
    assert isinstance(error, ModelFailed)
    assert error.kind is ModelFailureKind.REFUSED
