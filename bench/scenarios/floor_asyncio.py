"""The asyncio floor: the same plain loop on asyncio (`asyncio.gather` per tool round), for reference."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from .. import http_fixture, script
from ..measure import concurrent_runs, timed_batches
from . import Options, check, main
from ._floor import COUNT, TOOLS, Call, Message, Response, chunks, initial_messages, respond


async def model(messages: list[Message], rounds: int, text: str, latency: float) -> Response:
    if latency:
        await asyncio.sleep(latency)
    return respond(messages, rounds, text)


async def _run_tool(call: Call) -> Message:
    output = await TOOLS[call.name](**json.loads(call.arguments))
    return {"role": "tool", "call_id": call.call_id, "content": output}


async def run(
    rounds: int = script.TOOL_ROUNDS,
    text: str = script.FINAL_TEXT,
    latency: float = 0.0,
    messages: list[Message] | None = None,
) -> str:
    """One run of the script; returns the final text."""
    messages = initial_messages() if messages is None else messages
    usage = [0, 0]
    for _ in range(16):
        response = await model(messages, rounds, text, latency)
        usage[0] += response.input_tokens
        usage[1] += response.output_tokens
        if not response.calls:
            messages.append({"role": "assistant", "content": response.text})
            return response.text
        messages.append({"role": "assistant", "tool_calls": response.calls})
        messages.extend(await asyncio.gather(*(_run_tool(call) for call in response.calls)))
    raise RuntimeError("max turns exceeded")


async def run_streamed(rounds: int = script.TOOL_ROUNDS) -> AsyncIterator[object]:
    """The script with a streaming model: yields every chunk, every tool result and the final answer."""
    messages = initial_messages()
    for _ in range(16):
        received = chunks(messages, rounds)
        calls: list[Call] = []
        for chunk in received:
            yield chunk
            if isinstance(chunk, Call):
                calls.append(chunk)
        if not calls:
            text = "".join(c for c in received if isinstance(c, str))
            messages.append({"role": "assistant", "content": text})
            yield messages[-1]
            return
        messages.append({"role": "assistant", "tool_calls": tuple(calls)})
        results = await asyncio.gather(*(_run_tool(call) for call in calls))
        for result in results:
            yield result
        messages.extend(results)


def s1(options: Options) -> dict[str, object]:
    async def once() -> None:
        check(await run(rounds=0, text=script.S1_TEXT) == script.S1_TEXT, "S1 answer")

    return asyncio.run(timed_batches(once, options.budget))


def s2(options: Options) -> dict[str, object]:
    async def once() -> None:
        before = COUNT[0]
        check(await run() == script.FINAL_TEXT, "S2 answer")
        check(COUNT[0] - before == script.TOOL_CALLS, "S2 tool count")

    return {**asyncio.run(timed_batches(once, options.budget)), "model_turns": script.MODEL_TURNS}


def s4(options: Options) -> dict[str, object]:
    counted = [0]

    async def once() -> None:
        before = COUNT[0]
        n = 0
        last: object = None
        async for event in run_streamed():
            n += 1
            last = event
        check(isinstance(last, dict) and last["content"] == script.FINAL_TEXT, f"S4 answer {last!r}")
        check(COUNT[0] - before == script.TOOL_CALLS, "S4 tool count")
        counted[0] = n

    result = asyncio.run(timed_batches(once, options.budget))
    return {**result, "events_per_run": counted[0]}


async def _fan_out(n: int) -> None:
    before = COUNT[0]
    async with asyncio.TaskGroup() as group:
        for _ in range(n):
            group.create_task(run(script.TOOL_ROUNDS, script.FINAL_TEXT, script.LATENCY))
    check(COUNT[0] - before == n * script.TOOL_CALLS, "S3 tool count")


def s3(options: Options) -> dict[str, object]:
    n = 200 if options.quick else script.S3_RUNS
    return asyncio.run(concurrent_runs(_fan_out, n, 2 if options.quick else 5, 15.0))


def s8(options: Options) -> dict[str, object]:
    n = 1_000 if options.quick else script.S8_RUNS
    return asyncio.run(concurrent_runs(_fan_out, n, 1, 0.0))


def s5(options: Options) -> dict[str, object]:
    """Cost of one more tool round at each history size: (T(rounds=R) - T(rounds=0)) / R."""
    per_size: dict[str, object] = {}
    for size in script.S5_SIZES:
        template = initial_messages(size)

        async def with_rounds(rounds: int, template: list[Message] = template) -> None:
            await run(rounds=rounds, messages=list(template))

        async def measure() -> dict[str, object]:
            base = await timed_batches(lambda: with_rounds(0), options.budget.smaller())
            loaded = await timed_batches(lambda: with_rounds(script.TOOL_ROUNDS), options.budget.smaller())
            return {"base_us": base["us"], "rounds_us": loaded["us"]}

        per_size[str(size)] = asyncio.run(measure())
    return {"sizes": per_size, "rounds": script.TOOL_ROUNDS}


# S9: the raw openai SDK on asyncio, one client for every call.


async def _s9_calls(base_url: str, n: int) -> dict[str, object]:
    from openai import AsyncOpenAI

    timings = http_fixture.Timings()
    async with AsyncOpenAI(api_key="sk-bench", base_url=base_url, max_retries=0) as client:
        for _ in range(n):
            timings.start()
            parts: list[str] = []
            stream = await client.chat.completions.create(
                model=http_fixture.MODEL,
                messages=[{"role": "user", "content": http_fixture.PROMPT}],
                stream=True,
                stream_options={"include_usage": True},
            )
            async with stream:
                async for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        timings.first_text()
                        parts.append(chunk.choices[0].delta.content)
            timings.done("".join(parts))
    return timings.result()


def s9(options: Options) -> dict[str, object]:
    with http_fixture.serving() as base_url:
        return asyncio.run(_s9_calls(base_url, http_fixture.calls(options.quick)))


SCENARIOS = {"S1": s1, "S2": s2, "S3": s3, "S4": s4, "S5": s5, "S8": s8, "S9": s9}

if __name__ == "__main__":
    main(SCENARIOS)
