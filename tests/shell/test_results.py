"""`RunResultStreaming.collect` / `collect_typed`, `RunResult` and `RunError`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import attrs
import pytest
from tests.shell.loop_fakes import ephemeral

from helikon_fc import (
    AgentEvent,
    AgentInput,
    AssistantMessage,
    LlmAgent,
    MaxTurnsExceeded,
    MessageOutput,
    OtherError,
    RunCompleted,
    RunError,
    RunFailed,
    RunResult,
    RunResultStreaming,
    RunStarted,
    TokenDelta,
    Usage,
)
from helikon_fc.testing import ScriptedModel, reply


@asynccontextmanager
async def replay(events: Sequence[AgentEvent]) -> AsyncIterator[AsyncIterator[AgentEvent]]:
    """A run stream that replays `events`."""

    async def iterate() -> AsyncIterator[AgentEvent]:
        for event in events:
            yield event

    iterator = iterate()
    try:
        yield iterator
    finally:
        await iterator.aclose()  # type: ignore[attr-defined]


def message(text: str) -> MessageOutput:
    return MessageOutput(AssistantMessage(text, "a"))


USAGE = Usage(input_tokens=3, output_tokens=4, requests=1)


async def test_final_output_is_the_last_message() -> None:
    """`final_output` is the text of the last `MessageOutput`, even when a later turn said nothing."""
    events: list[AgentEvent] = [
        RunStarted("a"),
        message("first"),
        TokenDelta("x"),
        message("second"),
        RunCompleted(USAGE),
    ]
    result = await RunResultStreaming(replay(events)).collect()
    assert result == RunResult("second", tuple(events), USAGE)


async def test_final_output_is_empty_without_messages() -> None:
    """A run that produced no message has ``""`` as its final output."""
    result = await RunResultStreaming(replay([RunStarted("a"), RunCompleted(USAGE)])).collect()
    assert result.final_output == ""


async def test_run_failed_raises_run_error_with_the_error_and_events() -> None:
    """A terminal `RunFailed` raises `RunError` carrying the `AgentError`, a readable message, and the events."""
    events: list[AgentEvent] = [RunStarted("a"), message("partial"), RunFailed(MaxTurnsExceeded(3))]
    with pytest.raises(RunError) as info:
        await RunResultStreaming(replay(events)).collect()
    assert info.value.error == MaxTurnsExceeded(3)
    assert str(info.value) == "max turns (3) exceeded"
    assert info.value.events == tuple(events)
    assert repr(info.value) == "RunError(MaxTurnsExceeded(limit=3))"


async def test_a_stream_without_terminal_is_a_run_error() -> None:
    """A stream that ends with no terminal event is a `RunError`, not a silent success."""
    with pytest.raises(RunError, match="without a terminal event"):
        await RunResultStreaming(replay([RunStarted("a"), message("x")])).collect()


async def test_collecting_twice_is_refused() -> None:
    """A run stream runs once; collecting it a second time raises `RuntimeError`."""
    streaming = RunResultStreaming(replay([RunStarted("a"), RunCompleted(USAGE)]))
    await streaming.collect()
    with pytest.raises(RuntimeError, match="already collected"):
        await streaming.collect()


def test_from_events_matches_collect_semantics() -> None:
    """`RunResult.from_events` builds the same result, or raises the same `RunError`."""
    assert RunResult.from_events([RunStarted("a"), message("hi"), RunCompleted(USAGE)]).final_output == "hi"
    with pytest.raises(RunError):
        RunResult.from_events([RunStarted("a"), RunFailed(OtherError("x"))])


@attrs.frozen
class Budget:
    """A typed answer."""

    category: str
    remaining: int


async def test_collect_typed_decodes_attrs_classes_and_plain_types() -> None:
    """`collect_typed(T)` decodes the trimmed last message into a `T`: an attrs class or a plain type."""
    answer = message('  {"category": "dining", "remaining": 80}\n')
    events: list[AgentEvent] = [RunStarted("a"), answer, RunCompleted(USAGE)]
    result = await RunResultStreaming(replay(events)).collect_typed(Budget)
    assert result.final_output == Budget("dining", 80)
    assert result.usage == USAGE

    agent = LlmAgent(name="n", model=ScriptedModel([reply('{"value": [1, 2, 3]}')]), output_type=list[int])
    numbers = await RunResultStreaming(agent.run(ephemeral(), AgentInput.from_user_text("?"))).collect_typed(list[int])
    assert numbers.final_output == [1, 2, 3]


async def test_collect_typed_rejects_text_that_is_not_json() -> None:
    """A last message that is not JSON raises `RunError(OtherError)` showing the text, and does not blame
    a repair attempt that never ran."""
    events: list[AgentEvent] = [RunStarted("a"), message("about 80 left"), RunCompleted(USAGE)]
    with pytest.raises(RunError) as info:
        await RunResultStreaming(replay(events)).collect_typed(Budget)
    assert isinstance(info.value.error, OtherError)
    assert "'about 80 left'" in str(info.value)
    assert "repair" not in str(info.value)


async def test_collect_typed_on_an_agent_without_output_type_says_so() -> None:
    """`collect_typed` on an agent built with no `output_type` says the agent has none and how to set it."""
    agent = LlmAgent(name="plain", model=ScriptedModel([reply("You have $80 left.")]))
    with pytest.raises(RunError) as info:
        await RunResultStreaming(agent.run(ephemeral(), AgentInput.from_user_text("?"))).collect_typed(Budget)
    text = str(info.value)
    assert "no output_type" in text and "output_type=Budget" in text
    assert "repair" not in text


async def test_collect_typed_rejects_json_of_the_wrong_shape() -> None:
    """JSON that does not decode into `T` raises `RunError(OtherError)` naming the type and the problem."""
    events: list[AgentEvent] = [RunStarted("a"), message('{"category": "dining"}'), RunCompleted(USAGE)]
    with pytest.raises(RunError) as info:
        await RunResultStreaming(replay(events)).collect_typed(Budget)
    assert isinstance(info.value.error, OtherError)
    assert "Budget" in str(info.value) and "remaining" in str(info.value)


async def test_collect_typed_surfaces_run_failures() -> None:
    """A failed run raises its own error from `collect_typed`, not a decode error."""
    with pytest.raises(RunError) as info:
        await RunResultStreaming(replay([RunStarted("a"), RunFailed(MaxTurnsExceeded(1))])).collect_typed(Budget)
    assert info.value.error == MaxTurnsExceeded(1)


async def test_an_exception_in_on_event_propagates() -> None:
    """An exception raised by the `on_event` callback reaches the caller of `collect`, unchanged."""

    def explode(event: AgentEvent) -> None:
        if isinstance(event, TokenDelta):
            raise LookupError("consumer bug")

    agent = LlmAgent(name="a", model=ScriptedModel([reply("one two")]))
    with pytest.raises(LookupError, match="consumer bug"):
        await RunResultStreaming(agent.run(ephemeral(), AgentInput.from_user_text("?"))).collect(on_event=explode)
