"""Tiny hand-written agents for workflow tests: fixed latency, fixed answer or failure, and a
record of when each run started and ended (in trio's clock, so virtual under `MockClock`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import attrs
import trio

from helikon_fc.agents.protocol import Agent, RunStream
from helikon_fc.core import (
    AgentError,
    AgentEvent,
    AssistantMessage,
    JsonValue,
    MessageOutput,
    RunCompleted,
    RunFailed,
    RunStarted,
    TokenDelta,
    Usage,
    UserMessage,
)
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput

INPUT = AgentInput.from_user_text("go")
"""The input of most workflow tests."""


@attrs.define
class Timeline:
    """Start and end times (trio clock) of every run, by agent name, plus the inputs they saw."""

    starts: dict[str, list[float]] = attrs.field(factory=dict)
    ends: dict[str, list[float]] = attrs.field(factory=dict)
    inputs: dict[str, list[AgentInput]] = attrs.field(factory=dict)


def echo_inputs(name: str, input: AgentInput) -> str:
    """An answer that depends on the agent's name and every user text it was given."""
    texts = [item.text for item in input.items if isinstance(item, UserMessage)]
    return f"{name}({' | '.join(texts)})"


@attrs.frozen
class FakeAgent:
    """Sleeps `latency` seconds, then answers (`answer`, or a function of the input) or fails with `error`.

    Its events: RunStarted, TokenDelta, MessageOutput, then RunCompleted(usage) or RunFailed(error).
    With `escalate_on` it calls ``ctx.actions.escalate()`` on those (1-based) runs.
    """

    name: str
    answer: str | Callable[[str, AgentInput], str] = echo_inputs
    latency: float = 0.0
    error: AgentError | None = None
    usage: Usage = Usage(input_tokens=1, output_tokens=2, requests=1)
    timeline: Timeline | None = None
    escalate_on: frozenset[int] = frozenset()
    description: str = "a fake agent"
    runs: list[int] = attrs.field(factory=lambda: [0], eq=False)

    def run(self, ctx: RunContext[None], input: AgentInput) -> RunStream:
        return self._run(ctx, input)

    @asynccontextmanager
    async def _run(self, ctx: RunContext[None], input: AgentInput) -> AsyncIterator[AsyncIterator[AgentEvent]]:
        send, receive = trio.open_memory_channel[AgentEvent](0)

        async def produce() -> None:
            async with send:
                self.runs[0] += 1
                if self.timeline is not None:
                    self.timeline.starts.setdefault(self.name, []).append(trio.current_time())
                    self.timeline.inputs.setdefault(self.name, []).append(input)
                await send.send(RunStarted(self.name))
                await trio.sleep(self.latency)
                if self.timeline is not None:
                    self.timeline.ends.setdefault(self.name, []).append(trio.current_time())
                if self.runs[0] in self.escalate_on:
                    ctx.actions.escalate()
                if self.error is not None:
                    await send.send(RunFailed(self.error))
                    return
                text = self.answer if isinstance(self.answer, str) else self.answer(self.name, input)
                await send.send(TokenDelta(text))
                await send.send(MessageOutput(AssistantMessage(text, agent=self.name)))
                await send.send(RunCompleted(self.usage))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(produce)
            try:
                yield receive
            finally:
                nursery.cancel_scope.cancel()


async def drain(stream: RunStream) -> list[AgentEvent]:
    """Every event of a run stream, in order."""
    async with stream as events:
        return [event async for event in events]


async def state_after(agent: Agent[None]) -> dict[str, JsonValue]:
    """The shared state a run of `agent` on `INPUT` leaves behind."""
    ctx = RunContext.ephemeral(None)
    await drain(agent.run(ctx, INPUT))
    return ctx.state.snapshot()


def completed_usage(events: Sequence[AgentEvent]) -> Usage:
    """The usage of a run's `RunCompleted` (its last event), checked to be the sum of its per-agent breakdown."""
    last = events[-1]
    assert isinstance(last, RunCompleted), last
    breakdown = Usage()
    for pair in last.usage_by_agent:
        breakdown += pair.usage
    assert breakdown == last.usage, last
    return last.usage
