"""Small hand-written tools and helpers shared by the driver, run-stream and runner tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest
import trio

from helikon_fc.agents.protocol import RunStream
from helikon_fc.core import (
    AgentEvent,
    JsonObject,
    LoopState,
    TransitionCtx,
    TransitionInput,
    TransitionOutcome,
    transition,
)
from helikon_fc.engine import loop
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.tools.tool import ToolContext, ToolError, ToolOutput

NO_PARAMETERS: JsonObject = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


def _no_parameters() -> JsonObject:
    return dict(NO_PARAMETERS)


@attrs.define
class SleepTool:
    """Sleeps `seconds` (virtual under MockClock), records when it started and finished, returns its name."""

    name: str
    seconds: float = 1.0
    description: str = "Sleeps, then answers with its own name."
    parameters: JsonObject = attrs.field(factory=_no_parameters)
    started: list[float] = attrs.field(factory=list)
    finished: list[float] = attrs.field(factory=list)
    running: int = 0
    peak: int = 0

    async def invoke(self, ctx: ToolContext[Any], arguments: JsonObject) -> ToolOutput:
        self.started.append(trio.current_time())
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await trio.sleep(self.seconds)
        finally:
            self.running -= 1
        self.finished.append(trio.current_time())
        return ToolOutput(self.name)


@attrs.define
class SharedGauge:
    """Counts how many tools sharing it run at once."""

    running: int = 0
    peak: int = 0


@attrs.define
class GaugedSleepTool:
    """A one-second tool that reports into a shared gauge."""

    name: str
    gauge: SharedGauge
    seconds: float = 1.0
    description: str = "Sleeps."
    parameters: JsonObject = attrs.field(factory=_no_parameters)

    async def invoke(self, ctx: ToolContext[Any], arguments: JsonObject) -> ToolOutput:
        self.gauge.running += 1
        self.gauge.peak = max(self.gauge.peak, self.gauge.running)
        try:
            await trio.sleep(self.seconds)
        finally:
            self.gauge.running -= 1
        return ToolOutput(self.name)


@attrs.define
class FuncTool:
    """A tool whose behaviour is an async function of its arguments."""

    name: str
    fn: Callable[[ToolContext[Any], JsonObject], Any]
    description: str = "A test tool."
    parameters: JsonObject = attrs.field(factory=_no_parameters)
    calls: int = 0

    async def invoke(self, ctx: ToolContext[Any], arguments: JsonObject) -> ToolOutput:
        self.calls += 1
        result = await self.fn(ctx, arguments)
        return ToolOutput(result)


async def raising(ctx: ToolContext[Any], arguments: JsonObject) -> Any:
    """A tool body that fails with a plain exception."""
    raise RuntimeError("the ledger is locked")


async def tool_error(ctx: ToolContext[Any], arguments: JsonObject) -> Any:
    """A tool body that fails the way tools are meant to."""
    raise ToolError("category not found")


async def drain(run: RunStream) -> list[AgentEvent]:
    """Every event of a run, in order."""
    events: list[AgentEvent] = []
    async with run as stream:
        async for event in stream:
            events.append(event)
    return events


def kinds(events: list[AgentEvent] | tuple[AgentEvent, ...]) -> list[str]:
    """The class names of `events`."""
    return [type(event).__name__ for event in events]


def ephemeral() -> RunContext[None]:
    """A fresh context with no user value."""
    return RunContext.ephemeral(None)


@attrs.define
class TransitionLog:
    """Every (state, input, outcome) the driver fed through `transition`."""

    steps: list[tuple[LoopState, TransitionInput, TransitionOutcome]] = attrs.field(factory=list)

    def states(self) -> list[str]:
        """The state names visited, including the final next_state."""
        names = [type(state).__name__ for state, _, _ in self.steps]
        if self.steps:
            names.append(type(self.steps[-1][2].next_state).__name__)
        return names


def record_transitions(monkeypatch: pytest.MonkeyPatch) -> TransitionLog:
    """Make the loop's `transition` (`helikon_fc.engine.loop`) record every step it takes."""
    log = TransitionLog()

    def recording(state: LoopState, input: TransitionInput, ctx: TransitionCtx) -> TransitionOutcome:
        outcome = transition(state, input, ctx)
        log.steps.append((state, input, outcome))
        return outcome

    monkeypatch.setattr(loop, "transition", recording)
    return log
