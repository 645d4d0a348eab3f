"""The Messages API request bodies, pinned: one golden file per case under ``tests/anthropic/golden/``.

A mapping change shows up in review as a diff of these files. Each case is also sent through the SDK
to the local server, which checks it as the API would: what arrives is the golden body plus
``"stream": true``. After an intended change, regenerate with ``python tests/anthropic/test_anthropic_golden.py``
and review the diff.
"""

from __future__ import annotations

import json
import pathlib
import sys

import pytest
from tests.anthropic.anthropic_wire import AnthropicWire

from helikon_fc.anthropic import AnthropicModel
from helikon_fc.core import (
    AssistantMessage,
    Compacted,
    ModelRequest,
    ModelSettings,
    OutputSchema,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolDef,
    ToolResult,
    UserMessage,
)
from helikon_fc.core.conversation import Conversation

GOLDEN = pathlib.Path(__file__).parent / "golden"

WEATHER = ToolDef(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    strict=True,
)
TIME = ToolDef("get_time", "The time now.", {"type": "object", "properties": {}})
REPORT = OutputSchema(
    "WeatherReport",
    {"type": "object", "properties": {"city": {"type": "string"}, "temp_c": {"type": "integer"}}},
)
SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"

QUESTION = UserMessage("What's the weather in Paris, and the time?")
CALLS = (ToolCall("toolu_01A", "get_weather", '{"city": "Paris"}'), ToolCall("toolu_01B", "get_time", ""))
RESULTS = (ToolResult("toolu_01B", "12:00"), ToolResult("toolu_01A", "no such city", is_error=True))

CASES: dict[str, tuple[dict[str, object], ModelRequest]] = {
    "text": ({}, ModelRequest(instructions="Answer briefly.", items=Conversation([UserMessage("Hello")]))),
    "tool_loop": (
        {},
        ModelRequest(
            instructions="Use the tools.",
            items=Conversation([QUESTION, AssistantMessage("Let me check.", "weather"), *CALLS, *RESULTS]),
            tools=(WEATHER, TIME),
            settings=ModelSettings(temperature=0.2, tool_choice="required", parallel_tool_calls=False),
        ),
    ),
    "thinking_round_trip": (
        {"thinking_budget": 2048, "max_tokens": 8192},
        ModelRequest(
            instructions=None,
            items=Conversation(
                [
                    QUESTION,
                    Reasoning("The user wants the weather.", signature=SIGNATURE),
                    Reasoning("", redacted="EmwKAhgBEgy3va3pzix"),
                    Reasoning("unsigned reasoning from another provider"),
                    CALLS[0],
                    RESULTS[1],
                ]
            ),
            tools=(WEATHER,),
        ),
    ),
    "prompt_caching": (
        {},
        ModelRequest(
            instructions="You are a weather assistant.",
            items=Conversation([QUESTION, CALLS[1], RESULTS[0]]),
            tools=(WEATHER, TIME),
            settings=ModelSettings(prompt_caching=True, max_output_tokens=512),
        ),
    ),
    "structured_json_schema": (
        {},
        ModelRequest(instructions="Report.", items=Conversation([QUESTION]), output_schema=REPORT),
    ),
    "structured_tool": (
        {"structured_output": "tool"},
        ModelRequest(instructions="Report.", items=Conversation([QUESTION]), output_schema=REPORT),
    ),
    "system_messages": (
        {},
        ModelRequest(
            instructions="Be brief.",
            items=Conversation(
                [
                    SystemMessage("Summary of earlier turns: the user lives in Paris."),
                    Compacted("Summary of earlier turns: the user lives in Paris.", 2),
                    UserMessage("Hi"),
                    UserMessage("Are you there?"),
                    AssistantMessage("Yes."),
                    SystemMessage("The user is on a phone."),
                    UserMessage("Weather?"),
                ]
            ),
            settings=ModelSettings(tool_choice="none", top_p=0.9),
        ),
    ),
}


def render(name: str) -> str:
    """The golden text of case `name`: its request body, two-space indented."""
    options, request = CASES[name]
    model = AnthropicModel("claude-sonnet-4-5", api_key="sk-ant-golden", **options)  # type: ignore[arg-type]
    return json.dumps(model.request_body(request), indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_golden_files_pin_the_request_bodies(name: str) -> None:
    """`request_body` of each case is exactly what its golden file holds."""
    assert (GOLDEN / f"{name}.json").read_text(encoding="utf-8") == render(name), f"{name}.json is stale"


@pytest.mark.parametrize("name", sorted(CASES))
async def test_the_server_receives_the_golden_body(name: str, messages_wire: AnthropicWire) -> None:
    """Sent through the SDK, each body passes the server's API checks and arrives as pinned, plus the stream flag."""
    options, request = CASES[name]
    messages_wire.enqueue("text_stream")
    model = AnthropicModel("claude-sonnet-4-5", base_url=messages_wire.base_url, **options)  # type: ignore[arg-type]
    async with model.stream(request) as stream:
        async for _ in stream:
            pass
    (received,) = messages_wire.bodies()
    assert received == {**json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8")), "stream": True}


def regenerate() -> None:
    """Write every golden file from `CASES`."""
    GOLDEN.mkdir(exist_ok=True)
    for name in CASES:
        (GOLDEN / f"{name}.json").write_text(render(name), encoding="utf-8")


if __name__ == "__main__":
    regenerate()
    sys.stdout.write(f"wrote {len(CASES)} golden files under {GOLDEN}\n")
