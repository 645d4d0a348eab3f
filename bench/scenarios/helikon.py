"""helikon_fc through its public API, with an in-process fake `Model` (no HTTP, no simulator bookkeeping).

The fake implements the `Model` protocol as a provider adapter would: it builds fresh stream events
on every call, reports usage 10 in / 5 out, and derives the turn from the last conversation item only
(`Conversation` indexing is O(1)), so one model object serves any number of concurrent runs.

S2 is also timed with the simulator's `FunctionModel` answering the same script (`simulated_model`),
which is what a test suite built on ``helikon_fc.testing`` pays per run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from types import TracebackType

import trio
import trio.testing

from helikon_fc import (
    AgentInput,
    AssistantMessage,
    GraphAgent,
    LlmAgent,
    MessageOutput,
    Model,
    RunContext,
    RunResultStreaming,
    ToolResult,
    UserMessage,
    function_tool,
)
from helikon_fc.core import (
    Conversation,
    ExecuteTools,
    FinishReason,
    Item,
    JsonObject,
    ModelEvent,
    ModelFinish,
    ModelRequest,
    ModelResponse,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    Start,
    Terminate,
    ToolCall,
    ToolDef,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    Usage,
    initial_state,
    transition,
)
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply

from .. import http_fixture, script
from ..graphs import random_graphs
from ..libraries import S2_SIMULATOR
from ..measure import concurrent_runs, timed_batches, timed_sync_batches
from . import Options, check, main

COUNT = [0]
USAGE = Usage(input_tokens=script.INPUT_TOKENS, output_tokens=script.OUTPUT_TOKENS)


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


TOOLS = (t0, t1, t2, t3)


class _Stream:
    """One streamed answer: waits the latency on entry, then yields its events."""

    __slots__ = ("_events", "_latency", "_position")

    def __init__(self, events: list[ModelEvent], latency: float) -> None:
        self._events = events
        self._latency = latency
        self._position = 0

    async def __aenter__(self) -> _Stream:
        if self._latency:
            await trio.sleep(self._latency)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def __aiter__(self) -> _Stream:
        return self

    async def __anext__(self) -> ModelEvent:
        if self._position >= len(self._events):
            raise StopAsyncIteration
        event = self._events[self._position]
        self._position += 1
        return event


def turn_of(items: Sequence[Item]) -> int:
    """The model turn, from the last item only."""
    last = items[-1]
    return script.turn_after(last.call_id) if isinstance(last, ToolResult) else 0


class BenchModel:
    """The fake model: `rounds` tool rounds, then `text` (in `chunks` when given)."""

    def __init__(
        self,
        *,
        rounds: int = script.TOOL_ROUNDS,
        text: str = script.FINAL_TEXT,
        chunks: tuple[str, ...] | None = None,
        latency: float = 0.0,
    ) -> None:
        self.rounds = rounds
        self.chunks = chunks or (text,)
        self.latency = latency

    @property
    def name(self) -> str:
        return "bench"

    def stream(self, request: ModelRequest) -> _Stream:
        turn = turn_of(request.items)
        events: list[ModelEvent]
        if turn < self.rounds:
            arguments = f'{{"x": {turn}}}'
            events = [
                ModelToolCallDelta(script.call_id(turn, k), name, arguments) for k, name in enumerate(script.TOOL_NAMES)
            ]
            events.append(ModelUsage(Usage(input_tokens=script.INPUT_TOKENS, output_tokens=script.OUTPUT_TOKENS)))
            events.append(ModelFinish(FinishReason.TOOL_CALLS))
        else:
            events = [ModelTextDelta(chunk) for chunk in self.chunks]
            events.append(ModelUsage(Usage(input_tokens=script.INPUT_TOKENS, output_tokens=script.OUTPUT_TOKENS)))
            events.append(ModelFinish(FinishReason.STOP))
        return _Stream(events, self.latency)


def agent(model: Model, tools: bool = True) -> LlmAgent[None]:
    return LlmAgent(name="bench", model=model, instructions=script.INSTRUCTIONS, tools=TOOLS if tools else ())


PROMPT_INPUT = AgentInput.from_user_text(script.PROMPT)


async def run(a: LlmAgent[None], input: AgentInput = PROMPT_INPUT) -> str:
    result = await RunResultStreaming(a.run(RunContext.ephemeral(None), input)).collect()
    return result.final_output


def s1(options: Options) -> dict[str, object]:
    a = agent(BenchModel(rounds=0, text=script.S1_TEXT), tools=False)

    async def once() -> None:
        check(await run(a) == script.S1_TEXT, "S1 answer")

    return trio.run(timed_batches, once, options.budget)


def simulated_turn(request: ModelRequest) -> ScriptedTurn:
    """The shared script as a `FunctionModel` turn: the turn from the last item only, as `BenchModel` does."""
    turn = turn_of(request.items)
    if turn < script.TOOL_ROUNDS:
        calls = (call(name, x=turn).with_id(script.call_id(turn, k)) for k, name in enumerate(script.TOOL_NAMES))
        return call_tools(*calls, usage=USAGE)
    return reply(script.FINAL_TEXT, usage=USAGE)


def simulated_model() -> FunctionModel:
    """The simulator's `FunctionModel` running the S2 script (its request log at the default size)."""
    return FunctionModel(simulated_turn, name="bench")


def _s2_once(a: LlmAgent[None]):  # type: ignore[no-untyped-def]
    async def once() -> None:
        before = COUNT[0]
        check(await run(a) == script.FINAL_TEXT, "S2 answer")
        check(COUNT[0] - before == script.TOOL_CALLS, "S2 tool count")

    return once


def s2(options: Options) -> dict[str, object]:
    """S2 on the plain fake `Model`, then (in the same process, right after) on the simulator's `FunctionModel`."""
    plain = trio.run(timed_batches, _s2_once(agent(BenchModel())), options.budget)
    simulated = trio.run(timed_batches, _s2_once(agent(simulated_model())), options.budget)
    return {**plain, "model_turns": script.MODEL_TURNS, "variants": {S2_SIMULATOR: simulated}}


def s4(options: Options) -> dict[str, object]:
    a = agent(BenchModel(chunks=script.FINAL_CHUNKS))
    counted = [0]

    async def once() -> None:
        before = COUNT[0]
        n = 0
        last: object = None
        async with a.run(RunContext.ephemeral(None), PROMPT_INPUT) as events:
            async for event in events:
                n += 1
                if isinstance(event, MessageOutput):
                    last = event.item.text
        check(last == script.FINAL_TEXT, f"S4 answer {last!r}")
        check(COUNT[0] - before == script.TOOL_CALLS, "S4 tool count")
        counted[0] = n

    result = trio.run(timed_batches, once, options.budget)
    return {**result, "events_per_run": counted[0]}


def _fan_out_with(a: LlmAgent[None]):  # type: ignore[no-untyped-def]
    async def fan_out(n: int) -> None:
        before = COUNT[0]
        async with trio.open_nursery() as nursery:
            for _ in range(n):
                nursery.start_soon(run, a)
        check(COUNT[0] - before == n * script.TOOL_CALLS, "S3 tool count")

    return fan_out


def s3(options: Options) -> dict[str, object]:
    n = 200 if options.quick else script.S3_RUNS
    fan_out = _fan_out_with(agent(BenchModel(latency=script.LATENCY)))
    return trio.run(concurrent_runs, fan_out, n, 2 if options.quick else 5, 15.0)


def s8(options: Options) -> dict[str, object]:
    n = 1_000 if options.quick else script.S8_RUNS
    fan_out = _fan_out_with(agent(BenchModel(latency=script.LATENCY)))
    return trio.run(concurrent_runs, fan_out, n, 1, 0.0)


def history_input(size: int) -> AgentInput:
    items: list[Item] = [
        UserMessage(text) if role == "user" else AssistantMessage(text, "bench")
        for role, text in script.history_texts(size)
    ]
    items.append(UserMessage(script.PROMPT))
    return AgentInput.from_items(items)


def s5(options: Options) -> dict[str, object]:
    """Cost of one more tool round at each history size: (T(rounds=R) - T(rounds=0)) / R."""
    base_agent = agent(BenchModel(rounds=0))
    loaded_agent = agent(BenchModel())
    per_size: dict[str, object] = {}
    for size in script.S5_SIZES:
        input = history_input(size)

        async def measure(input: AgentInput = input) -> dict[str, object]:
            async def base() -> None:
                await run(base_agent, input)

            async def loaded() -> None:
                await run(loaded_agent, input)

            b = await timed_batches(base, options.budget.smaller())
            r = await timed_batches(loaded, options.budget.smaller())
            return {"base_us": b["us"], "rounds_us": r["us"]}

        per_size[str(size)] = trio.run(measure)
    return {"sizes": per_size, "rounds": script.TOOL_ROUNDS}


# S6: the pure core alone, replaying a recorded S2 run.

_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {"x": {"type": "integer"}},
    "required": ["x"],
    "additionalProperties": False,
}


def recorded_s2() -> tuple[TransitionCtx, list[ModelResponse], list[ToolResults]]:
    """What the driver feeds `transition` in an S2 run: the context, the model's answers, the tool results."""
    tools = tuple(ToolDef(name, f"Tool {k}.", _PARAMETERS, strict=True) for k, name in enumerate(script.TOOL_NAMES))
    ctx = TransitionCtx(agent_name="bench", instructions=script.INSTRUCTIONS, conversation=Conversation(), tools=tools)
    responses = [
        ModelResponse(
            tool_calls=tuple(
                ToolCall(script.call_id(turn, k), name, f'{{"x": {turn}}}') for k, name in enumerate(script.TOOL_NAMES)
            ),
            usage=USAGE,
            finish_reason=FinishReason.TOOL_CALLS,
        )
        for turn in range(script.TOOL_ROUNDS)
    ]
    responses.append(ModelResponse(text=script.FINAL_TEXT, usage=USAGE))
    tools_per_round = range(len(script.TOOL_NAMES))
    results = [
        ToolResults(tuple(ToolResult(script.call_id(turn, k), script.tool_output(k, turn)) for k in tools_per_round))
        for turn in range(script.TOOL_ROUNDS)
    ]
    return ctx, responses, results


def replay(ctx0: TransitionCtx, responses: list[ModelResponse], results: list[ToolResults]) -> int:
    """Drive `transition` through one S2 run as the driver does (extending the conversation); the step count."""
    conversation = Conversation((UserMessage(script.PROMPT),))
    ctx = TransitionCtx(
        agent_name=ctx0.agent_name, instructions=ctx0.instructions, conversation=conversation, tools=ctx0.tools
    )
    state = initial_state()
    step: TransitionInput = Start()
    steps = 0
    model_turn = tool_round = 0
    while True:
        outcome = transition(state, step, ctx)
        steps += 1
        action = outcome.next_action
        if type(action) is Terminate:
            return steps
        if outcome.conversation_appends:
            conversation = conversation.extend(outcome.conversation_appends)
            ctx = TransitionCtx(
                agent_name=ctx.agent_name, instructions=ctx.instructions, conversation=conversation, tools=ctx.tools
            )
        state = outcome.next_state
        if type(action) is ExecuteTools:
            step = results[tool_round]
            tool_round += 1
        else:
            step = responses[model_turn]
            model_turn += 1


def s6(options: Options) -> dict[str, object]:
    ctx, responses, results = recorded_s2()
    steps = replay(ctx, responses, results)
    check(steps == 2 * script.TOOL_ROUNDS + 2, f"S6 step count {steps}")
    timed = timed_sync_batches(lambda: replay(ctx, responses, results), options.budget)
    return {
        "us": timed["us"],
        "runs_per_batch": timed["runs_per_batch"],
        "transitions_per_run": steps,
        "transitions_per_s": [steps / us * 1e6 for us in timed["us"]],  # type: ignore[attr-defined]
    }


# S7: GraphAgent on random DAGs under MockClock.


def s7(options: Options) -> dict[str, object]:
    rows = []
    for graph in random_graphs(count=5 if options.quick else 20):
        builder = GraphAgent[None].builder().name("dag")
        for i in range(graph.nodes):
            model = BenchModel(rounds=0, text=f"node {i}", latency=float(graph.latency[i]))
            builder = builder.node(f"n{i}", LlmAgent(name=f"n{i}", model=model))
        for a, b in graph.edges:
            builder = builder.edge(f"n{a}", f"n{b}")
        dag = builder.build()

        async def run_graph(dag: GraphAgent[None] = dag) -> float:
            start = trio.current_time()
            await RunResultStreaming(dag.run(RunContext.ephemeral(None), PROMPT_INPUT)).collect()
            return trio.current_time() - start

        wall = time.perf_counter()
        makespan = trio.run(run_graph, clock=trio.testing.MockClock(autojump_threshold=0))
        rows.append({**graph.summary(), "makespan": makespan, "wall_s": time.perf_counter() - wall})
    return {"graphs": rows}


# S9: OpenAIModel over real HTTP to a local OpenAI-compatible server.


async def _s9_calls(base_url: str, n: int, *, client_per_call: bool) -> dict[str, object]:
    """`n` calls of one `OpenAIModel` used bare (no ``async with``); `client_per_call` closes its client after each."""
    from helikon_fc.openai import OpenAIModel

    model = OpenAIModel.chat(http_fixture.MODEL, base_url=base_url, api_key="sk-bench")
    request = ModelRequest(instructions=None, items=Conversation([UserMessage(http_fixture.PROMPT)]))
    timings = http_fixture.Timings()
    for _ in range(n):
        timings.start()
        parts: list[str] = []
        async with model.stream(request) as events:
            async for event in events:
                if isinstance(event, ModelTextDelta):
                    timings.first_text()
                    parts.append(event.text)
        timings.done("".join(parts))
        if client_per_call:
            await model.aclose()
    await model.aclose()
    return timings.result()


def s9(options: Options) -> dict[str, object]:
    n = http_fixture.calls(options.quick)
    with http_fixture.serving() as base_url:
        shared = trio.run(partial(_s9_calls, base_url, n, client_per_call=False))
        per_call = trio.run(partial(_s9_calls, base_url, n, client_per_call=True))
    return {**shared, "variants": {"a client per call (before issue 12)": per_call}}


SCENARIOS = {"S1": s1, "S2": s2, "S3": s3, "S4": s4, "S5": s5, "S6": s6, "S7": s7, "S8": s8, "S9": s9}

if __name__ == "__main__":
    main(SCENARIOS)
