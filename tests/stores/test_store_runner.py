"""`Runner` with a store's session: history across runs, a failed session write, a timed-out run."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from tests.shell.loop_fakes import drain
from tests.stores.conftest import Backend

from helikon_fc import (
    AgentInput,
    AssistantMessage,
    LlmAgent,
    RunCompleted,
    RunConfig,
    RunContext,
    RunFailed,
    Runner,
    SessionFailed,
    TimedOut,
    UserMessage,
)
from helikon_fc.stores import MemoryStore, StoreError
from helikon_fc.testing import ScriptedModel, reply


async def test_a_store_session_carries_the_history_into_the_next_run(backend: Backend) -> None:
    """The second run on a store's session sees the first run's items before its own input; on a
    database, a new store (another process) sees both runs."""
    async with backend.new_store() as store:
        ctx = RunContext(None, session=store.session("alice"))
        first = LlmAgent(name="a", model=ScriptedModel([reply("Hello Alice.")]))
        await drain(Runner().run(first, ctx, AgentInput.from_user_text("I am Alice.")))
        second_model = ScriptedModel([reply("You are Alice.")])
        events = await drain(Runner().run(first.with_model(second_model), ctx, AgentInput.from_user_text("Who?")))
        assert isinstance(events[-1], RunCompleted)
        history = (UserMessage("I am Alice."), AssistantMessage("Hello Alice.", "a"))
        assert tuple(second_model.requests[0].items) == (*history, UserMessage("Who?"))
        expected = (*history, UserMessage("Who?"), AssistantMessage("You are Alice.", "a"))
        assert await ctx.session.items() == expected
    async with backend.new_store() as reopened:
        assert await reopened.session("alice").items() == (expected if backend.persistent else ())


async def test_a_session_write_that_fails_ends_the_run_with_session_failed(backend: Backend) -> None:
    """When the session cannot keep the run's items, the run's terminal is `RunFailed(SessionFailed)`
    and the session keeps what it had."""
    async with backend.new_store() as store:
        session = store.session("alice")
        await session.append([UserMessage("earlier")])
        agent = LlmAgent(name="a", model=ScriptedModel([reply("ok")]))
        events = await drain(
            Runner().run(
                agent, RunContext.ephemeral(None, session=session), AgentInput.from_user_text("bad \ud800 text")
            )
        )
        assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, SessionFailed)
        assert "item 0 of the batch cannot be stored" in str(events[-1].error)
        assert await session.items() == (UserMessage("earlier"),)


async def test_a_timed_out_run_is_still_recorded(autojump_clock: trio.testing.MockClock) -> None:
    """A run cut off by its deadline records its input in the store's session (the write is shielded)."""
    store = MemoryStore()
    session = store.session("alice")
    agent = LlmAgent(name="a", model=ScriptedModel([reply("late", latency=10)]))
    events = await drain(
        Runner(RunConfig(timeout=1)).run(
            agent, RunContext.ephemeral(None, session=session), AgentInput.from_user_text("hi")
        )
    )
    assert events[-1] == RunFailed(TimedOut(1))
    assert await session.items() == (UserMessage("hi"),)
    await store.aclose()


async def test_a_session_that_cannot_be_read_fails_the_start_with_store_error() -> None:
    """When the history cannot be read, the run does not start: `StoreError` is raised where the stream
    is opened (as any failure to start is), and nothing is appended."""
    store = MemoryStore()
    session = store.session("alice")
    await session.append([UserMessage("earlier")])
    await store.aclose()
    agent = LlmAgent(name="a", model=ScriptedModel([reply("ok")]))
    with pytest.raises(StoreError, match="is closed"):
        async with Runner().run(agent, RunContext.ephemeral(None, session=session), AgentInput.from_user_text("hi")):
            pass  # pragma: no cover
