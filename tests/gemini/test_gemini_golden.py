"""The request bodies `GeminiModel` sends, pinned: one golden file per sample under ``tests/gemini/golden/``.

Each sample is sent over real HTTP to the local Gemini server and the body the server received is
compared with its golden file, so a change to the mapping shows up in review as a diff of these
files. Two-turn samples first play a fixture (function calls, thoughts, signatures) and pin what the
second request sends back. After an intended change, regenerate them with
``python -m tests.gemini.test_gemini_golden`` (from the repository's root) and review the diff.
"""

from __future__ import annotations

import json
import pathlib
import sys
from collections.abc import Awaitable, Callable

import pytest
import trio
from tests.gemini.gemini_wire import GeminiServer, running_server

from helikon_fc.core import (
    AssistantMessage,
    Item,
    ModelEvent,
    ModelRequest,
    ModelSettings,
    OutputSchema,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolDef,
    ToolResult,
    UserMessage,
    assemble_response,
)
from helikon_fc.core.conversation import Conversation
from helikon_fc.gemini import GeminiModel

GOLDEN = pathlib.Path(__file__).parent / "golden"
KEY = "golden-key"

WEATHER = ToolDef(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
TIME = ToolDef("get_time", "The current time.", {"type": "object", "properties": {}}, strict=True)
REPORT = OutputSchema(
    "WeatherReport",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "temp_c": {"type": "integer"}},
        "required": ["city", "temp_c"],
    },
)
QUESTION = UserMessage("What's the weather in Paris, and the time?")


def request(*items: Item, **fields: object) -> ModelRequest:
    instructions = fields.pop("instructions", "Answer briefly.")
    assert instructions is None or isinstance(instructions, str)
    return ModelRequest(instructions=instructions, items=Conversation(list(items)), **fields)  # type: ignore[arg-type]


ONE_TURN: dict[str, ModelRequest] = {
    "text": request(QUESTION),
    "no_instructions": request(QUESTION, instructions=None),
    "conversation": request(
        SystemMessage("Today is Monday."),
        QUESTION,
        Reasoning("The user wants two things."),
        AssistantMessage("Let me look.", agent="assistant"),
        ToolCall("call_0123456789ab_0", "get_weather", '{"city":"Paris"}'),
        ToolCall("call_0123456789ab_1", "get_time", "{}"),
        ToolResult("call_0123456789ab_1", "09:30"),
        ToolResult("call_0123456789ab_0", "no such city", is_error=True),
        SystemMessage("Be kind."),
        UserMessage("Thanks!"),
    ),
    "tools_and_settings": request(
        QUESTION,
        tools=(WEATHER, TIME),
        settings=ModelSettings(temperature=0.2, top_p=0.9, max_output_tokens=256, tool_choice="required"),
    ),
    "named_tool_choice": request(QUESTION, tools=(WEATHER,), settings=ModelSettings(tool_choice="get_weather")),
    "no_tool_choice_without_tools": request(QUESTION, settings=ModelSettings(tool_choice="none")),
    "structured_output": request(QUESTION, output_schema=REPORT),
}
"""Requests sent as they are (with no signatures known)."""


async def drain(model: GeminiModel, req: ModelRequest) -> list[ModelEvent]:
    async with model.stream(req) as stream:
        return [event async for event in stream]


async def second_turn(server: GeminiServer, fixture: str, *, include_thoughts: bool = False) -> None:
    """Play `fixture` as the first turn, then send the conversation back with the calls answered in reverse."""
    model = GeminiModel("gemini-2.5-flash", api_key=KEY, base_url=server.base_url, include_thoughts=include_thoughts)
    first = request(QUESTION, tools=(WEATHER, TIME))
    server.enqueue(fixture)
    response = assemble_response(await drain(model, first))
    items: list[Item] = [QUESTION]
    if response.reasoning:
        items.append(Reasoning(response.reasoning))
    if response.text:
        items.append(AssistantMessage(response.text))
    items.extend(response.tool_calls)
    items.extend(ToolResult(call.call_id, f"result of {call.name}") for call in reversed(response.tool_calls))
    if not response.tool_calls:
        items.append(UserMessage("And tomorrow?"))
    server.enqueue("text_stream")
    await drain(model, request(*items, tools=(WEATHER, TIME)))


TWO_TURNS: dict[str, Callable[[GeminiServer], Awaitable[None]]] = {
    "signatures_parallel_calls": lambda server: second_turn(server, "parallel_tool_calls"),
    "signatures_calls_with_ids": lambda server: second_turn(server, "tool_calls_with_ids"),
    "signatures_thoughts_and_text": lambda server: second_turn(server, "reasoning", include_thoughts=True),
    "signatures_empty_text_carrier": lambda server: second_turn(server, "signature_carrier"),
    "signatures_on_a_thought": lambda server: second_turn(server, "signed_thought", include_thoughts=True),
}
"""The second request after a first turn that brought function calls, ids, thoughts and signatures."""


async def sent_body(name: str) -> dict[str, object]:
    """The body the server received for sample `name` (the last request of a two-turn sample)."""
    with running_server(KEY) as server:
        if name in ONE_TURN:
            server.enqueue("text_stream")
            model = GeminiModel("gemini-2.5-flash", api_key=KEY, base_url=server.base_url)
            await drain(model, ONE_TURN[name])
        else:
            await TWO_TURNS[name](server)
        return server.requests[-1].body


def render(body: dict[str, object]) -> str:
    return json.dumps(body, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


SAMPLES = sorted([*ONE_TURN, *TWO_TURNS])


@pytest.mark.parametrize("name", SAMPLES)
async def test_the_request_body_matches_its_golden_file(name: str) -> None:
    """What went over the wire is the pinned body (regenerate with this module after an intended change)."""
    assert render(await sent_body(name)) == (GOLDEN / f"{name}.json").read_text(encoding="utf-8")


def test_every_golden_file_has_a_sample() -> None:
    """No stale golden file: each one is produced by a sample."""
    assert sorted(path.stem for path in GOLDEN.glob("*.json")) == SAMPLES


def regenerate() -> None:
    """Write every sample's golden file."""
    GOLDEN.mkdir(exist_ok=True)
    for name in SAMPLES:
        (GOLDEN / f"{name}.json").write_text(render(trio.run(sent_body, name)), encoding="utf-8")


if __name__ == "__main__":
    regenerate()
    sys.stdout.write(f"wrote {len(SAMPLES)} golden files under {GOLDEN}\n")
