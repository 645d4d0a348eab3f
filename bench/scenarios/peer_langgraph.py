"""langgraph through its public API: a `StateGraph` over messages with a model node and a `ToolNode`.

The model node calls an in-process fake LangChain chat model (a `BaseChatModel` subclass, tools
bound with `bind_tools` as with a real provider). It builds fresh messages on every call, reports
usage 10 in / 5 out and derives the turn from the last message only. No checkpointer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from .. import script
from ..measure import concurrent_runs, timed_batches
from . import Options, check, main

COUNT = [0]


@tool
async def t0(x: int) -> str:
    """Tool 0."""
    COUNT[0] += 1
    return script.tool_output(0, x)


@tool
async def t1(x: int) -> str:
    """Tool 1."""
    COUNT[0] += 1
    return script.tool_output(1, x)


@tool
async def t2(x: int) -> str:
    """Tool 2."""
    COUNT[0] += 1
    return script.tool_output(2, x)


@tool
async def t3(x: int) -> str:
    """Tool 3."""
    COUNT[0] += 1
    return script.tool_output(3, x)


TOOLS = [t0, t1, t2, t3]
USAGE = {
    "input_tokens": script.INPUT_TOKENS,
    "output_tokens": script.OUTPUT_TOKENS,
    "total_tokens": script.INPUT_TOKENS + script.OUTPUT_TOKENS,
}


def turn_of(messages: Sequence[BaseMessage]) -> int:
    last = messages[-1]
    return script.turn_after(last.tool_call_id) if isinstance(last, ToolMessage) else 0


class BenchChatModel(BaseChatModel):
    """The fake chat model: `rounds` tool rounds, then `text` (streamed in `chunks`)."""

    rounds: int = script.TOOL_ROUNDS
    text: str = script.FINAL_TEXT
    chunks: tuple[str, ...] = ()
    latency: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "bench"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _message(self, messages: list[BaseMessage]) -> AIMessage:
        turn = turn_of(messages)
        if turn < self.rounds:
            return AIMessage(
                content="",
                tool_calls=[
                    {"name": name, "args": {"x": turn}, "id": script.call_id(turn, k), "type": "tool_call"}
                    for k, name in enumerate(script.TOOL_NAMES)
                ],
                usage_metadata=dict(USAGE),  # type: ignore[arg-type]
            )
        return AIMessage(content=self.text, usage_metadata=dict(USAGE))  # type: ignore[arg-type]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._message(messages))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency:
            await asyncio.sleep(self.latency)
        return ChatResult(generations=[ChatGeneration(message=self._message(messages))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        if self.latency:
            await asyncio.sleep(self.latency)
        turn = turn_of(messages)
        if turn < self.rounds:
            arguments = f'{{"x": {turn}}}'
            for k, name in enumerate(script.TOOL_NAMES):
                part = {"name": name, "args": arguments, "id": script.call_id(turn, k), "index": k}
                chunk = AIMessageChunk(content="", tool_call_chunks=[{**part, "type": "tool_call_chunk"}])  # type: ignore[list-item]
                if run_manager:
                    await run_manager.on_llm_new_token("", chunk=ChatGenerationChunk(message=chunk))
                yield ChatGenerationChunk(message=chunk)
        else:
            for text in self.chunks or (self.text,):
                chunk = AIMessageChunk(content=text)
                if run_manager:
                    await run_manager.on_llm_new_token(text, chunk=ChatGenerationChunk(message=chunk))
                yield ChatGenerationChunk(message=chunk)
        yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=dict(USAGE)))  # type: ignore[arg-type]


def graph(model: BenchChatModel, tools: bool = True) -> Any:
    bound = model.bind_tools(TOOLS) if tools else model
    system = {"role": "system", "content": script.INSTRUCTIONS}

    async def call_model(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await bound.ainvoke([system, *state["messages"]])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", call_model)
    builder.add_edge(START, "agent")
    if tools:
        builder.add_node("tools", ToolNode(TOOLS))
        builder.add_conditional_edges("agent", tools_condition)
        builder.add_edge("tools", "agent")
    else:
        builder.add_edge("agent", END)
    return builder.compile()


INPUT = {"messages": [{"role": "user", "content": script.PROMPT}]}


async def run(g: Any, input: dict[str, Any] = INPUT) -> str:
    state = await g.ainvoke(input)
    return str(state["messages"][-1].content)


def history_input(size: int) -> dict[str, Any]:
    """S5: `size` earlier messages, then the prompt, as the graph's input state."""
    messages: list[BaseMessage] = [
        HumanMessage(text) if role == "user" else AIMessage(text) for role, text in script.history_texts(size)
    ]
    messages.append(HumanMessage(script.PROMPT))
    return {"messages": messages}


def s5(options: Options) -> dict[str, object]:
    """Cost of one more tool round at each history size: (T(rounds=R) - T(rounds=0)) / R."""
    base_graph, loaded_graph = graph(BenchChatModel(rounds=0)), graph(BenchChatModel())
    per_size: dict[str, object] = {}
    for size in script.S5_SIZES:
        input = history_input(size)

        async def measure(input: dict[str, Any] = input) -> dict[str, object]:
            async def base() -> None:
                check(await run(base_graph, input) == script.FINAL_TEXT, "S5 answer")

            async def loaded() -> None:
                check(await run(loaded_graph, input) == script.FINAL_TEXT, "S5 answer")

            b = await timed_batches(base, options.budget.smaller())
            r = await timed_batches(loaded, options.budget.smaller())
            return {"base_us": b["us"], "rounds_us": r["us"]}

        per_size[str(size)] = asyncio.run(measure())
    return {"sizes": per_size, "rounds": script.TOOL_ROUNDS}


def s1(options: Options) -> dict[str, object]:
    g = graph(BenchChatModel(rounds=0, text=script.S1_TEXT), tools=False)

    async def once() -> None:
        check(await run(g) == script.S1_TEXT, "S1 answer")

    return asyncio.run(timed_batches(once, options.budget))


def s2(options: Options) -> dict[str, object]:
    g = graph(BenchChatModel())

    async def once() -> None:
        before = COUNT[0]
        check(await run(g) == script.FINAL_TEXT, "S2 answer")
        check(COUNT[0] - before == script.TOOL_CALLS, f"S2 tool count {COUNT[0] - before}")

    return {**asyncio.run(timed_batches(once, options.budget)), "model_turns": script.MODEL_TURNS}


def s4(options: Options) -> dict[str, object]:
    g = graph(BenchChatModel(chunks=script.FINAL_CHUNKS))
    counted = [0]

    async def once() -> None:
        before = COUNT[0]
        n = 0
        final: object = None
        async for mode, payload in g.astream(INPUT, stream_mode=["messages", "updates"]):
            n += 1
            if mode == "updates" and "agent" in payload:
                final = payload["agent"]["messages"][-1].content
        check(final == script.FINAL_TEXT, f"S4 answer {final!r}")
        check(COUNT[0] - before == script.TOOL_CALLS, f"S4 tool count {COUNT[0] - before}")
        counted[0] = n

    result = asyncio.run(timed_batches(once, options.budget))
    return {**result, "events_per_run": counted[0]}


def _fan_out_with(g: Any):  # type: ignore[no-untyped-def]
    async def fan_out(n: int) -> None:
        before = COUNT[0]
        async with asyncio.TaskGroup() as group:
            for _ in range(n):
                group.create_task(run(g))
        check(COUNT[0] - before == n * script.TOOL_CALLS, "S3 tool count")

    return fan_out


def s3(options: Options) -> dict[str, object]:
    n = 200 if options.quick else script.S3_RUNS
    fan_out = _fan_out_with(graph(BenchChatModel(latency=script.LATENCY)))
    return asyncio.run(concurrent_runs(fan_out, n, 2 if options.quick else 5, 15.0))


def s8(options: Options) -> dict[str, object]:
    n = 1_000 if options.quick else script.S8_RUNS
    fan_out = _fan_out_with(graph(BenchChatModel(latency=script.LATENCY)))
    return asyncio.run(concurrent_runs(fan_out, n, 1, 0.0))


SCENARIOS = {"S1": s1, "S2": s2, "S3": s3, "S4": s4, "S5": s5, "S8": s8}

if __name__ == "__main__":
    main(SCENARIOS)
