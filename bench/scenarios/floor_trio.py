"""The trio floor: the script as a plain trio loop with no framework (the practical lower bound)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable

import trio
import trio.testing

from .. import http_fixture, script
from ..graphs import random_graphs
from ..libraries import S1_IN_A_NURSERY, S4_CHANNEL
from ..measure import concurrent_runs, timed_batches
from . import Options, check, main
from ._floor import COUNT, TOOLS, Call, Message, Response, chunks, initial_messages, respond


async def model(messages: list[Message], rounds: int, text: str, latency: float) -> Response:
    if latency:
        await trio.sleep(latency)
    return respond(messages, rounds, text)


async def _run_tool(call: Call, results: list[Message | None], index: int) -> None:
    output = await TOOLS[call.name](**json.loads(call.arguments))
    results[index] = {"role": "tool", "call_id": call.call_id, "content": output}


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
        results: list[Message | None] = [None] * len(response.calls)
        async with trio.open_nursery() as nursery:
            for index, call in enumerate(response.calls):
                nursery.start_soon(_run_tool, call, results, index)
        messages.extend(results)  # type: ignore[arg-type]
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
        results: list[Message | None] = [None] * len(calls)
        async with trio.open_nursery() as nursery:
            for index, call in enumerate(calls):
                nursery.start_soon(_run_tool, call, results, index)
        for result in results:
            yield result
        messages.extend(results)  # type: ignore[arg-type]


async def _run_into(answer: list[str]) -> None:
    answer.append(await run(rounds=0, text=script.S1_TEXT))


def s1(options: Options) -> dict[str, object]:
    """One turn as a plain call, then (the reference of issue 14's S1 target) as a task in a nursery of its own."""

    async def once() -> None:
        check(await run(rounds=0, text=script.S1_TEXT) == script.S1_TEXT, "S1 answer")

    async def once_in_a_nursery() -> None:
        answer: list[str] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_run_into, answer)
        check(answer == [script.S1_TEXT], "S1 answer")

    plain = trio.run(timed_batches, once, options.budget)
    return {**plain, "variants": {S1_IN_A_NURSERY: trio.run(timed_batches, once_in_a_nursery, options.budget)}}


def s2(options: Options) -> dict[str, object]:
    async def once() -> None:
        before = COUNT[0]
        check(await run() == script.FINAL_TEXT, "S2 answer")
        check(COUNT[0] - before == script.TOOL_CALLS, "S2 tool count")

    return {**trio.run(timed_batches, once, options.budget), "model_turns": script.MODEL_TURNS}


async def _produce(send_channel: trio.MemorySendChannel[object]) -> None:
    async with send_channel:
        async for event in run_streamed():
            await send_channel.send(event)


async def consume_in_task() -> tuple[int, object]:
    """Iterate `run_streamed` in this task: how many events, and the last one."""
    n, last = 0, None
    async for event in run_streamed():
        n, last = n + 1, event
    return n, last


async def consume_through_a_channel() -> tuple[int, object]:
    """`run_streamed` in a producer task of its own, its events received through an unbuffered memory channel."""
    n, last = 0, None
    send_channel, receive_channel = trio.open_memory_channel[object](0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_produce, send_channel)
        async with receive_channel:
            async for event in receive_channel:
                n, last = n + 1, event
    return n, last


def s4(options: Options) -> dict[str, object]:
    """The streamed script consumed in the run's own task, then through a producer task and a memory channel."""
    counted = [0]

    def once_with(consume: Callable[[], Awaitable[tuple[int, object]]]) -> Callable[[], Awaitable[None]]:
        async def once() -> None:
            before = COUNT[0]
            n, last = await consume()
            check(isinstance(last, dict) and last["content"] == script.FINAL_TEXT, f"S4 answer {last!r}")
            check(COUNT[0] - before == script.TOOL_CALLS, "S4 tool count")
            counted[0] = n

        return once

    result = trio.run(timed_batches, once_with(consume_in_task), options.budget)
    channel = trio.run(timed_batches, once_with(consume_through_a_channel), options.budget)
    return {**result, "events_per_run": counted[0], "variants": {S4_CHANNEL: {**channel, "events_per_run": counted[0]}}}


async def _fan_out(n: int) -> None:
    before = COUNT[0]
    async with trio.open_nursery() as nursery:
        for _ in range(n):
            nursery.start_soon(run, script.TOOL_ROUNDS, script.FINAL_TEXT, script.LATENCY)
    check(COUNT[0] - before == n * script.TOOL_CALLS, "S3 tool count")


def s3(options: Options) -> dict[str, object]:
    n = 200 if options.quick else script.S3_RUNS
    return trio.run(concurrent_runs, _fan_out, n, 2 if options.quick else 5, 15.0)


def s8(options: Options) -> dict[str, object]:
    n = 1_000 if options.quick else script.S8_RUNS
    return trio.run(concurrent_runs, _fan_out, n, 1, 0.0)


def s5(options: Options) -> dict[str, object]:
    """Cost of one more tool round at each history size: (T(rounds=R) - T(rounds=0)) / R."""
    per_size: dict[str, object] = {}
    for size in script.S5_SIZES:
        template = initial_messages(size)

        async def with_rounds(rounds: int, template: list[Message] = template) -> None:
            await run(rounds=rounds, messages=list(template))

        async def measure() -> dict[str, object]:
            budget = options.budget.smaller()
            base = await timed_batches(lambda: with_rounds(0), budget)
            loaded = await timed_batches(lambda: with_rounds(script.TOOL_ROUNDS), budget)
            return {"base_us": base["us"], "rounds_us": loaded["us"]}

        per_size[str(size)] = trio.run(measure)
    return {"sizes": per_size, "rounds": script.TOOL_ROUNDS}


async def _wavefront(nodes: int, edges: list[tuple[int, int]], latency: list[int]) -> float:
    """Run a DAG as a plain trio wavefront: a node starts the moment its last predecessor ends."""
    preds = [0] * nodes
    succs: list[list[int]] = [[] for _ in range(nodes)]
    for a, b in edges:
        preds[b] += 1
        succs[a].append(b)
    start = trio.current_time()

    async def node(i: int, nursery: trio.Nursery) -> None:
        await trio.sleep(latency[i])
        for j in succs[i]:
            preds[j] -= 1
            if preds[j] == 0:
                nursery.start_soon(node, j, nursery)

    async with trio.open_nursery() as nursery:
        for i in range(nodes):
            if preds[i] == 0:
                nursery.start_soon(node, i, nursery)
    return trio.current_time() - start


def s7(options: Options) -> dict[str, object]:
    rows = []
    for graph in random_graphs(count=5 if options.quick else 20):
        makespan = trio.run(
            _wavefront, graph.nodes, graph.edges, graph.latency, clock=trio.testing.MockClock(autojump_threshold=0)
        )
        rows.append({**graph.summary(), "makespan": makespan})
    return {"graphs": rows}


# S9: the raw openai SDK on trio, one client for every call (what a shared client costs).


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
        return trio.run(_s9_calls, base_url, http_fixture.calls(options.quick))


SCENARIOS = {"S1": s1, "S2": s2, "S3": s3, "S4": s4, "S5": s5, "S7": s7, "S8": s8, "S9": s9}

if __name__ == "__main__":
    main(SCENARIOS)
