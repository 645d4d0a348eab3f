"""pydantic-ai through its public API, with its in-process `FunctionModel` (no HTTP).

The model function builds fresh response parts on every call, reports usage 10 in / 5 out and
derives the turn from the last message part only. The agent has an explicit `name` (so pydantic-ai
does not inspect the caller's frames to infer one).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.usage import RequestUsage

from .. import http_fixture, script
from ..measure import concurrent_runs, timed_batches
from . import Options, check, main

COUNT = [0]


async def t0(x: int) -> str:
    """Tool 0."""
    COUNT[0] += 1
    return script.tool_output(0, x)


async def t1(x: int) -> str:
    """Tool 1."""
    COUNT[0] += 1
    return script.tool_output(1, x)


async def t2(x: int) -> str:
    """Tool 2."""
    COUNT[0] += 1
    return script.tool_output(2, x)


async def t3(x: int) -> str:
    """Tool 3."""
    COUNT[0] += 1
    return script.tool_output(3, x)


TOOLS = [t0, t1, t2, t3]


def turn_of(messages: list[ModelMessage]) -> int:
    last = messages[-1]
    if isinstance(last, ModelRequest) and last.parts:
        part = last.parts[-1]
        if isinstance(part, ToolReturnPart):
            return script.turn_after(part.tool_call_id)
    return 0


def model(
    *,
    rounds: int = script.TOOL_ROUNDS,
    text: str = script.FINAL_TEXT,
    chunks: tuple[str, ...] | None = None,
    latency: float = 0.0,
) -> FunctionModel:
    """The fake model: `rounds` tool rounds, then `text` (streamed in `chunks`)."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if latency:
            await asyncio.sleep(latency)
        turn = turn_of(messages)
        usage = RequestUsage(input_tokens=script.INPUT_TOKENS, output_tokens=script.OUTPUT_TOKENS)
        if turn < rounds:
            arguments = f'{{"x": {turn}}}'
            return ModelResponse(
                parts=[
                    ToolCallPart(name, arguments, tool_call_id=script.call_id(turn, k))
                    for k, name in enumerate(script.TOOL_NAMES)
                ],
                usage=usage,
            )
        return ModelResponse(parts=[TextPart(text)], usage=usage)

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        if latency:
            await asyncio.sleep(latency)
        turn = turn_of(messages)
        if turn < rounds:
            arguments = f'{{"x": {turn}}}'
            for k, name in enumerate(script.TOOL_NAMES):
                yield {k: DeltaToolCall(name=name, json_args=arguments, tool_call_id=script.call_id(turn, k))}
        else:
            for chunk in chunks or (text,):
                yield chunk

    return FunctionModel(respond, stream_function=stream)


def agent(m: FunctionModel, tools: bool = True) -> Agent[None, str]:
    return Agent(m, name="bench", instructions=script.INSTRUCTIONS, tools=TOOLS if tools else [])


async def run(a: Agent[None, str], history: list[ModelMessage] | None = None) -> str:
    result = await a.run(script.PROMPT, message_history=history)
    return result.output


def history_messages(size: int) -> list[ModelMessage]:
    """S5: `size` earlier messages as pydantic-ai message history (the prompt is passed separately)."""
    return [
        ModelRequest(parts=[UserPromptPart(text)]) if role == "user" else ModelResponse(parts=[TextPart(text)])
        for role, text in script.history_texts(size)
    ]


def s5(options: Options) -> dict[str, object]:
    """Cost of one more tool round at each history size: (T(rounds=R) - T(rounds=0)) / R."""
    base_agent, loaded_agent = agent(model(rounds=0)), agent(model())
    per_size: dict[str, object] = {}
    for size in script.S5_SIZES:
        history = history_messages(size)

        async def measure(history: list[ModelMessage] = history) -> dict[str, object]:
            async def base() -> None:
                check(await run(base_agent, history) == script.FINAL_TEXT, "S5 answer")

            async def loaded() -> None:
                check(await run(loaded_agent, history) == script.FINAL_TEXT, "S5 answer")

            b = await timed_batches(base, options.budget.smaller())
            r = await timed_batches(loaded, options.budget.smaller())
            return {"base_us": b["us"], "rounds_us": r["us"]}

        per_size[str(size)] = asyncio.run(measure())
    return {"sizes": per_size, "rounds": script.TOOL_ROUNDS}


def s1(options: Options) -> dict[str, object]:
    a = agent(model(rounds=0, text=script.S1_TEXT), tools=False)

    async def once() -> None:
        check(await run(a) == script.S1_TEXT, "S1 answer")

    return asyncio.run(timed_batches(once, options.budget))


def s2(options: Options) -> dict[str, object]:
    a = agent(model())

    async def once() -> None:
        before = COUNT[0]
        check(await run(a) == script.FINAL_TEXT, "S2 answer")
        check(COUNT[0] - before == script.TOOL_CALLS, f"S2 tool count {COUNT[0] - before}")

    return {**asyncio.run(timed_batches(once, options.budget)), "model_turns": script.MODEL_TURNS}


def s4(options: Options) -> dict[str, object]:
    a = agent(model(chunks=script.FINAL_CHUNKS))
    counted = [0]

    async def once() -> None:
        before = COUNT[0]
        n = 0
        last: Any = None
        async with a.run_stream_events(script.PROMPT) as events:
            async for event in events:
                n += 1
                last = event
        check(getattr(getattr(last, "result", None), "output", None) == script.FINAL_TEXT, f"S4 answer {last!r}")
        check(COUNT[0] - before == script.TOOL_CALLS, "S4 tool count")
        counted[0] = n

    result = asyncio.run(timed_batches(once, options.budget))
    return {**result, "events_per_run": counted[0]}


def _fan_out_with(a: Agent[None, str]):  # type: ignore[no-untyped-def]
    async def fan_out(n: int) -> None:
        before = COUNT[0]
        async with asyncio.TaskGroup() as group:
            for _ in range(n):
                group.create_task(run(a))
        check(COUNT[0] - before == n * script.TOOL_CALLS, "S3 tool count")

    return fan_out


def s3(options: Options) -> dict[str, object]:
    n = 200 if options.quick else script.S3_RUNS
    fan_out = _fan_out_with(agent(model(latency=script.LATENCY)))
    return asyncio.run(concurrent_runs(fan_out, n, 2 if options.quick else 5, 15.0))


def s8(options: Options) -> dict[str, object]:
    n = 1_000 if options.quick else script.S8_RUNS
    fan_out = _fan_out_with(agent(model(latency=script.LATENCY)))
    return asyncio.run(concurrent_runs(fan_out, n, 1, 0.0))


# S9: pydantic-ai's OpenAIChatModel over real HTTP, one client for every call.


async def _s9_calls(base_url: str, n: int) -> dict[str, object]:
    from openai import AsyncOpenAI
    from pydantic_ai.messages import ModelRequest, PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    timings = http_fixture.Timings()
    async with AsyncOpenAI(api_key="sk-bench", base_url=base_url, max_retries=0) as client:
        model = OpenAIChatModel(http_fixture.MODEL, provider=OpenAIProvider(openai_client=client))
        messages: list[Any] = [ModelRequest.user_text_prompt(http_fixture.PROMPT)]
        for _ in range(n):
            timings.start()
            parts: list[str] = []
            async with model.request_stream(messages, None, ModelRequestParameters()) as stream:
                async for event in stream:
                    text = ""
                    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                        text = event.part.content
                    elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                        text = event.delta.content_delta
                    if text:
                        timings.first_text()
                        parts.append(text)
            timings.done("".join(parts))
    return timings.result()


def s9(options: Options) -> dict[str, object]:
    with http_fixture.serving() as base_url:
        return asyncio.run(_s9_calls(base_url, http_fixture.calls(options.quick)))


SCENARIOS = {"S1": s1, "S2": s2, "S3": s3, "S4": s4, "S5": s5, "S8": s8, "S9": s9}

if __name__ == "__main__":
    main(SCENARIOS)
