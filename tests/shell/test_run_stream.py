"""Run streams: the run lives in the block, backpressure never drops, leaving early leaks nothing,
failures to start raise from ``__aenter__``, and exactly one terminal event comes last."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing
from tests.shell.loop_fakes import SleepTool, drain, ephemeral

from helikon_fc import AgentEvent, AgentInput, LlmAgent, RunCompleted, RunFailed, RunStarted, TokenDelta
from helikon_fc.core import OtherError, TerminalEvent, Usage
from helikon_fc.shell.loop.run_stream import STREAM_BUFFER, RunEvents, Send, emit_run, open_run_stream
from helikon_fc.testing import ScriptedModel, call, call_tools, fail, reply

QUESTION = AgentInput.from_user_text("hi")


class Counter:
    """A producer that sends numbered deltas forever, counting what it managed to send."""

    def __init__(self) -> None:
        self.sent = 0
        self.cancelled = False

    async def __call__(
        self,
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        task_status.started()
        async with send_channel:
            try:
                while True:
                    await send_channel.send(TokenDelta(str(self.sent)))
                    self.sent += 1
            except trio.Cancelled:
                self.cancelled = True
                raise


async def test_a_slow_consumer_slows_the_producer(autojump_clock: trio.testing.MockClock) -> None:
    """The channel is bounded: while the consumer sleeps, the producer waits instead of running ahead or dropping."""
    producer = Counter()
    async with open_run_stream(producer) as events:
        first = await events.__anext__()
        await trio.sleep(100)
        assert producer.sent <= STREAM_BUFFER + 1
        received = [first]
        for _ in range(3 * STREAM_BUFFER):
            received.append(await events.__anext__())
    assert [e.text for e in received if isinstance(e, TokenDelta)] == [str(i) for i in range(3 * STREAM_BUFFER + 1)]
    assert producer.cancelled


async def test_a_slow_consumer_delays_the_agent_run(autojump_clock: trio.testing.MockClock) -> None:
    """Backpressure reaches the loop: a tool runs only once the consumer has nearly caught up with the events
    streamed before it."""
    words = 4 * STREAM_BUFFER
    for delay in (0.0, 1.0):
        tool = SleepTool("a", seconds=0)
        turn = call_tools(call("a"), text=" ".join(["w"] * words))
        agent = LlmAgent(name="a", model=ScriptedModel([turn, reply("done")]), tools=[tool])
        start = trio.current_time()
        async with agent.run(ephemeral(), QUESTION) as events:
            async for _ in events:
                await trio.sleep(delay)
        waited = tool.started[0] - start
        if delay == 0:
            assert waited == 0
        else:
            # RunStarted, TurnStarted and `words` deltas precede the call; the channel holds STREAM_BUFFER of them.
            assert words - STREAM_BUFFER - 1 <= waited <= words + 2


async def test_leaving_early_cancels_and_leaks_no_task(autojump_clock: trio.testing.MockClock) -> None:
    """Leaving the block with the run still going cancels it; no task outlives the block."""
    producer = Counter()
    living = trio.lowlevel.current_statistics().tasks_living
    async with open_run_stream(producer) as events:
        await events.__anext__()
    assert producer.cancelled
    assert trio.lowlevel.current_statistics().tasks_living == living


async def test_an_exception_in_the_consumer_propagates_unwrapped() -> None:
    """An exception raised in the block comes out as itself, not wrapped in an exception group."""
    producer = Counter()
    with pytest.raises(KeyError, match="mine"):
        async with open_run_stream(producer) as events:
            await events.__anext__()
            raise KeyError("mine")
    assert producer.cancelled


async def test_a_failure_to_start_raises_from_aenter_unwrapped() -> None:
    """What a producer raises before ``task_status.started()`` is raised from entering the block."""

    async def refuse(
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        send_channel.close()
        raise ValueError("cannot start")

    entered = False
    with pytest.raises(ValueError, match="cannot start"):
        async with open_run_stream(refuse):
            entered = True  # pragma: no cover
    assert not entered


async def run_body(body: Any) -> list[AgentEvent]:
    async def produce(
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        task_status.started()
        async with send_channel:
            await emit_run(send_channel.send, ephemeral(), "agent", body)

    return await drain(open_run_stream(produce))


async def test_emit_run_brackets_the_body() -> None:
    """`emit_run` sends `RunStarted` first and the body's terminal last."""

    async def body(send: Send) -> TerminalEvent:
        await send(TokenDelta("x"))
        return RunCompleted(Usage())

    assert await run_body(body) == [RunStarted("agent"), TokenDelta("x"), RunCompleted(Usage())]


async def test_emit_run_turns_a_raising_body_into_run_failed() -> None:
    """A body that raises ends the stream with one `RunFailed(OtherError("internal error: ..."))`."""

    async def body(send: Send) -> TerminalEvent:
        await send(TokenDelta("x"))
        raise ValueError("bug")

    events = await run_body(body)
    assert events == [RunStarted("agent"), TokenDelta("x"), RunFailed(OtherError("internal error: ValueError: bug"))]


async def test_emit_run_survives_a_consumer_that_closed_the_channel() -> None:
    """When the consumer closed its end, the producer stops quietly instead of raising into the nursery."""
    finished = trio.Event()

    async def body(send: Send) -> TerminalEvent:
        try:
            for _ in range(1000):
                await send(TokenDelta("x"))
        finally:
            finished.set()
        return RunCompleted(Usage())  # pragma: no cover

    async def produce(
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        task_status.started()
        async with send_channel:
            await emit_run(send_channel.send, ephemeral(), "agent", body)

    async with open_run_stream(produce) as events:
        await events.__anext__()
        assert isinstance(events, RunEvents)
        await events.aclose()
        await finished.wait()


SCENARIOS: dict[str, list[Any]] = {
    "answer": [reply("hello there")],
    "tools": [call_tools(call("a"), call("a")), reply("ok")],
    "model failure": [fail("nope")],
    "exhausted": [call_tools(call("a"))],
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_exactly_one_terminal_event_comes_last(name: str) -> None:
    """Whatever happens, a run's stream starts with `RunStarted` and holds exactly one terminal event, last."""
    agent = LlmAgent(name="a", model=ScriptedModel(SCENARIOS[name]), tools=[SleepTool("a", seconds=0)])
    events = await drain(agent.run(ephemeral(), QUESTION))
    assert events[0] == RunStarted("a")
    terminals = [i for i, e in enumerate(events) if isinstance(e, RunCompleted | RunFailed)]
    assert terminals == [len(events) - 1]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_collect_in_the_callers_task_matches_the_stream(name: str) -> None:
    """`collect()` runs an `LlmAgent` run in the caller's task (no channel); its events equal the streamed ones."""
    from helikon_fc import RunError, RunResultStreaming
    from helikon_fc.shell.loop.run_stream import RunStreamManager

    def agent() -> LlmAgent[None]:
        return LlmAgent(name="a", model=ScriptedModel(SCENARIOS[name]), tools=[SleepTool("a", seconds=0)])

    streamed = await drain(agent().run(ephemeral(), QUESTION))
    run = agent().run(ephemeral(), QUESTION)
    assert isinstance(run, RunStreamManager) and run.can_drain
    try:
        collected = list((await RunResultStreaming(run).collect()).events)
    except RunError as exc:
        collected = list(exc.events)
    assert collected == streamed
    assert not run.can_drain  # a run stream runs once


async def test_a_run_stream_runs_once() -> None:
    """Entering the same run stream twice is refused with a `RuntimeError` saying how to run again."""
    run = LlmAgent(name="a", model=ScriptedModel([reply("ok")])).run(ephemeral(), QUESTION)
    await drain(run)
    with pytest.raises(RuntimeError, match="runs once"):
        async with run:
            pass  # pragma: no cover


class _Boom(Exception):
    """What a consumer raises in the tests of `forward_run`."""


def _as_stream_only(run: Any) -> Any:
    """The same run seen only as an async context manager, so `forward_run` must take the nursery path."""

    class StreamOnly:
        async def __aenter__(self) -> Any:
            return await run.__aenter__()

        async def __aexit__(self, *exc_info: Any) -> bool:
            return bool(await run.__aexit__(*exc_info))

    return StreamOnly()


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "nursery"])
async def test_forward_run_gives_the_same_events_on_both_paths(direct: bool) -> None:
    """`forward_run` hands every event to `send`, terminal last, whether the run drains in this task or streams."""
    from helikon_fc.shell.loop.run_stream import forward_run

    def agent() -> LlmAgent[None]:
        model = ScriptedModel([call_tools(call("a")), reply("done")])
        return LlmAgent(name="a", model=model, tools=[SleepTool("a", seconds=0)])

    run = agent().run(ephemeral(), QUESTION)
    seen: list[AgentEvent] = []

    async def keep(event: AgentEvent) -> None:
        seen.append(event)

    await forward_run(run if direct else _as_stream_only(run), keep)
    assert seen == await drain(agent().run(ephemeral(), QUESTION))
    assert isinstance(seen[-1], RunCompleted)


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "nursery"])
async def test_an_exception_out_of_send_stops_the_run_and_propagates_unchanged(direct: bool) -> None:
    """On both paths, what `send` raises reaches the caller itself (no group around it) and the run stops there."""
    from helikon_fc.shell.loop.run_stream import forward_run

    tool = SleepTool("a", seconds=0)
    model = ScriptedModel([call_tools(call("a")), reply("done")])
    run = LlmAgent(name="a", model=model, tools=[tool]).run(ephemeral(), QUESTION)
    boom = _Boom("consumer failed")
    seen: list[AgentEvent] = []

    async def explode(event: AgentEvent) -> None:
        seen.append(event)
        if not isinstance(event, RunStarted):
            raise boom

    with pytest.raises(_Boom) as caught:
        await forward_run(run if direct else _as_stream_only(run), explode)
    assert caught.value is boom
    assert len(seen) == 2, "nothing more reached `send` after it raised"
    if direct:  # in this task the run stops at once; a streamed run may have buffered a little ahead
        assert tool.started == [], "the run stopped before its first tool call"
