"""openai-agents (the OpenAI Agents SDK) through its public API with an in-process fake `Model`.

Tracing is disabled (it would try to export). The fake subclasses `agents.models.interface.Model`
as a provider would: it builds fresh Responses-API objects on every call, reports usage 10 in / 5
out, and derives the turn from the last input item only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseUsage,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled

from .. import http_fixture, script
from ..measure import concurrent_runs, timed_batches
from . import Options, check, main

set_tracing_disabled(True)
RUN_CONFIG = RunConfig(tracing_disabled=True)
COUNT = [0]


@function_tool
async def t0(x: int) -> str:
    """Tool 0."""
    COUNT[0] += 1
    return script.tool_output(0, x)


@function_tool
async def t1(x: int) -> str:
    """Tool 1."""
    COUNT[0] += 1
    return script.tool_output(1, x)


@function_tool
async def t2(x: int) -> str:
    """Tool 2."""
    COUNT[0] += 1
    return script.tool_output(2, x)


@function_tool
async def t3(x: int) -> str:
    """Tool 3."""
    COUNT[0] += 1
    return script.tool_output(3, x)


TOOLS = [t0, t1, t2, t3]


def turn_of(input: str | list[Any]) -> int:
    if isinstance(input, str) or not input:
        return 0
    last = input[-1]
    if isinstance(last, dict) and last.get("type") == "function_call_output":
        return script.turn_after(last["call_id"])
    return 0


def _message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg_bench",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(text=text, type="output_text", annotations=[], logprobs=[])],
    )


def _calls(turn: int) -> list[ResponseFunctionToolCall]:
    arguments = f'{{"x": {turn}}}'
    return [
        ResponseFunctionToolCall(
            id=script.call_id(turn, k),
            call_id=script.call_id(turn, k),
            type="function_call",
            name=name,
            arguments=arguments,
        )
        for k, name in enumerate(script.TOOL_NAMES)
    ]


class BenchModel(Model):
    """The fake model: `rounds` tool rounds, then `text` (streamed in `chunks`)."""

    def __init__(
        self,
        *,
        rounds: int = script.TOOL_ROUNDS,
        text: str = script.FINAL_TEXT,
        chunks: tuple[str, ...] | None = None,
        latency: float = 0.0,
    ) -> None:
        self.rounds = rounds
        self.text = text
        self.chunks = chunks or (text,)
        self.latency = latency

    def _output(self, input: str | list[Any]) -> list[Any]:
        turn = turn_of(input)
        return _calls(turn) if turn < self.rounds else [_message(self.text)]

    async def get_response(
        self,
        system_instructions,
        input,
        model_settings,
        tools,
        output_schema,
        handoffs,  # type: ignore[no-untyped-def]
        tracing,
        *,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    ):
        if self.latency:
            await asyncio.sleep(self.latency)
        usage = Usage(
            requests=1,
            input_tokens=script.INPUT_TOKENS,
            output_tokens=script.OUTPUT_TOKENS,
            total_tokens=script.INPUT_TOKENS + script.OUTPUT_TOKENS,
        )
        return ModelResponse(output=self._output(input), usage=usage, response_id=None)

    async def stream_response(
        self,
        system_instructions,
        input,
        model_settings,
        tools,
        output_schema,  # type: ignore[no-untyped-def, override]
        handoffs,
        tracing,
        *,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    ) -> AsyncIterator[Any]:
        if self.latency:
            await asyncio.sleep(self.latency)
        output = self._output(input)
        seq = 0
        if isinstance(output[0], ResponseFunctionToolCall):
            for index, call in enumerate(output):
                yield ResponseOutputItemDoneEvent(
                    item=call, output_index=index, sequence_number=seq, type="response.output_item.done"
                )
                seq += 1
        else:
            for chunk in self.chunks:
                yield ResponseTextDeltaEvent(
                    content_index=0,
                    delta=chunk,
                    item_id="msg_bench",
                    logprobs=[],
                    output_index=0,
                    sequence_number=seq,
                    type="response.output_text.delta",
                )
                seq += 1
        response = Response(
            id="resp_bench",
            created_at=0,
            model="bench",
            object="response",
            output=output,
            tool_choice="auto",
            tools=[],
            top_p=None,
            parallel_tool_calls=True,
            status="completed",
            usage=ResponseUsage(
                input_tokens=script.INPUT_TOKENS,
                output_tokens=script.OUTPUT_TOKENS,
                total_tokens=script.INPUT_TOKENS + script.OUTPUT_TOKENS,
                input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
                output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
            ),
        )
        yield ResponseCompletedEvent(response=response, sequence_number=seq, type="response.completed")


def agent(model: BenchModel, tools: bool = True) -> Agent[None]:
    return Agent(name="bench", instructions=script.INSTRUCTIONS, model=model, tools=TOOLS if tools else [])


async def run(a: Agent[None], input: str | list[Any] = script.PROMPT) -> str:
    result = await Runner.run(a, input, run_config=RUN_CONFIG)
    return str(result.final_output)


def history_input(size: int) -> list[Any]:
    """S5: `size` earlier messages, then the prompt, as Responses-API input items."""
    items: list[Any] = [{"role": role, "content": text} for role, text in script.history_texts(size)]
    items.append({"role": "user", "content": script.PROMPT})
    return items


def s5(options: Options) -> dict[str, object]:
    """Cost of one more tool round at each history size: (T(rounds=R) - T(rounds=0)) / R."""
    base_agent, loaded_agent = agent(BenchModel(rounds=0)), agent(BenchModel())
    per_size: dict[str, object] = {}
    for size in script.S5_SIZES:
        history = history_input(size)

        async def measure(history: list[Any] = history) -> dict[str, object]:
            async def base() -> None:
                check(await run(base_agent, list(history)) == script.FINAL_TEXT, "S5 answer")

            async def loaded() -> None:
                check(await run(loaded_agent, list(history)) == script.FINAL_TEXT, "S5 answer")

            b = await timed_batches(base, options.budget.smaller())
            r = await timed_batches(loaded, options.budget.smaller())
            return {"base_us": b["us"], "rounds_us": r["us"]}

        per_size[str(size)] = asyncio.run(measure())
    return {"sizes": per_size, "rounds": script.TOOL_ROUNDS}


def s1(options: Options) -> dict[str, object]:
    a = agent(BenchModel(rounds=0, text=script.S1_TEXT), tools=False)

    async def once() -> None:
        check(await run(a) == script.S1_TEXT, "S1 answer")

    return asyncio.run(timed_batches(once, options.budget))


def s2(options: Options) -> dict[str, object]:
    a = agent(BenchModel())

    async def once() -> None:
        before = COUNT[0]
        check(await run(a) == script.FINAL_TEXT, "S2 answer")
        check(COUNT[0] - before == script.TOOL_CALLS, f"S2 tool count {COUNT[0] - before}")

    return {**asyncio.run(timed_batches(once, options.budget)), "model_turns": script.MODEL_TURNS}


def s4(options: Options) -> dict[str, object]:
    a = agent(BenchModel(chunks=script.FINAL_CHUNKS))
    counted = [0]

    async def once() -> None:
        before = COUNT[0]
        result = Runner.run_streamed(a, script.PROMPT, run_config=RUN_CONFIG)
        n = 0
        async for _ in result.stream_events():
            n += 1
        check(result.final_output == script.FINAL_TEXT, f"S4 answer {result.final_output!r}")
        check(COUNT[0] - before == script.TOOL_CALLS, "S4 tool count")
        counted[0] = n

    result = asyncio.run(timed_batches(once, options.budget))
    return {**result, "events_per_run": counted[0]}


def _fan_out_with(a: Agent[None]):  # type: ignore[no-untyped-def]
    async def fan_out(n: int) -> None:
        before = COUNT[0]
        async with asyncio.TaskGroup() as group:
            for _ in range(n):
                group.create_task(run(a))
        check(COUNT[0] - before == n * script.TOOL_CALLS, "S3 tool count")

    return fan_out


def s3(options: Options) -> dict[str, object]:
    n = 200 if options.quick else script.S3_RUNS
    fan_out = _fan_out_with(agent(BenchModel(latency=script.LATENCY)))
    return asyncio.run(concurrent_runs(fan_out, n, 2 if options.quick else 5, 15.0))


def s8(options: Options) -> dict[str, object]:
    n = 1_000 if options.quick else script.S8_RUNS
    fan_out = _fan_out_with(agent(BenchModel(latency=script.LATENCY)))
    return asyncio.run(concurrent_runs(fan_out, n, 1, 0.0))


# S9: openai-agents' own Chat Completions model over real HTTP, one client for every call.


async def _s9_calls(base_url: str, n: int) -> dict[str, object]:
    from agents.models.interface import ModelTracing
    from agents.models.openai_chatcompletions import OpenAIChatCompletionsModel
    from openai import AsyncOpenAI

    from agents import ModelSettings

    timings = http_fixture.Timings()
    async with AsyncOpenAI(api_key="sk-bench", base_url=base_url, max_retries=0) as client:
        model = OpenAIChatCompletionsModel(model=http_fixture.MODEL, openai_client=client)
        for _ in range(n):
            timings.start()
            parts: list[str] = []
            async for event in model.stream_response(
                None, http_fixture.PROMPT, ModelSettings(), [], None, [], ModelTracing.DISABLED
            ):
                if event.type == "response.output_text.delta":
                    timings.first_text()
                    parts.append(event.delta)
            timings.done("".join(parts))
    return timings.result()


def s9(options: Options) -> dict[str, object]:
    with http_fixture.serving() as base_url:
        return asyncio.run(_s9_calls(base_url, http_fixture.calls(options.quick)))


SCENARIOS = {"S1": s1, "S2": s2, "S3": s3, "S4": s4, "S5": s5, "S8": s8, "S9": s9}

if __name__ == "__main__":
    main(SCENARIOS)
