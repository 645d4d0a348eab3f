"""`CompactingSession` on the simulator, over every store's sessions (and an `InMemorySession`):
the Session promises still hold; a history over the budget is summarised on the first append; a lone summary
or system message is left alone; a failed, slow or blank summary is skipped with a warning and the append kept;
compactions chain; concurrent appends compact once; a `Runner` run reads the summary in place of the old items."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence

import pytest
import trio
import trio.testing
from tests.shell.loop_fakes import drain
from tests.stores.conftest import make_backend
from tests.stores.test_store_sessions import UNSTORABLE

from helikon_fc import (
    AgentInput,
    AssistantMessage,
    Compacted,
    CompactingSession,
    CompactionSkipped,
    ConversationCompacted,
    InMemorySession,
    Item,
    LlmAgent,
    RunCompleted,
    RunContext,
    Runner,
    SystemMessage,
    UserMessage,
)
from helikon_fc.core import BLANK_SUMMARY, Conversation, ModelRequest, estimate_tokens, visible
from helikon_fc.core.compaction import summary_text
from helikon_fc.stores import SessionSnapshot, StoreBase, StoreError
from helikon_fc.testing import FunctionModel, ScriptedModel, fail, reply
from helikon_fc.testing.script import ScriptedTurn

BUDGET = 200
LONG = "word " * 100  # 125 tokens: two of these pass the budget


def long(n: int) -> UserMessage:
    return UserMessage(f"{n}: {LONG}")


def answer(n: int) -> AssistantMessage:
    return AssistantMessage(f"answer {n}: {LONG}", agent="a")


def backlog(turns: int) -> list[Item]:
    """`turns` long questions and answers (about 250 tokens each)."""
    return [item for n in range(turns) for item in (long(n), answer(n))]


class Summariser:
    """A summary model that names how many transcript lines it was given, and keeps every request."""

    def __init__(self, text: str | None = None, *, latency: float = 0.0) -> None:
        self.text = text
        self.latency = latency
        self.model = FunctionModel(self.turn, name="summariser")
        self.prompts: list[str] = []

    def turn(self, request: ModelRequest) -> ScriptedTurn:
        prompt = request.items[-1]
        assert isinstance(prompt, UserMessage)
        self.prompts.append(prompt.text)
        lines = sum(line.startswith("[") for line in prompt.text.splitlines())
        text = self.text if self.text is not None else f"summary #{len(self.prompts)} of {lines} lines"
        return reply(text, latency=self.latency)


@pytest.fixture(params=("memory", "sqlite", "postgres"))
async def store(request: pytest.FixtureRequest) -> AsyncIterator[StoreBase]:
    """A fresh MemoryStore, SQLiteStore, then PostgresStore (on the test session's server)."""
    async with make_backend(request, request.param).new_store() as opened:
        yield opened


def markers(items: Sequence[Item]) -> list[Compacted]:
    return [item for item in items if isinstance(item, Compacted)]


# Construction


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_tokens": 0}, ValueError, r"CompactingSession: max_tokens must be an int >= 17, got 0 \(int\)"),
        ({"max_tokens": -5}, ValueError, r"max_tokens must be an int >= 17, got -5"),
        ({"max_tokens": True}, TypeError, r"max_tokens must be an int >= 17, got True \(bool\)"),
        ({"max_tokens": "8000"}, TypeError, r"max_tokens must be an int >= 17, got '8000' \(str\)"),
        ({"max_tokens": 100, "summary_tokens": 100}, ValueError, r"summary_tokens must be an int < max_tokens \(100\)"),
        ({"summary_tokens": 3}, ValueError, r"summary_tokens must be an int >= 16, got 3"),
        ({"instructions": " "}, ValueError, r"instructions must be a non-empty string"),
        ({"summary_timeout": 0}, ValueError, r"summary_timeout must be a positive number of seconds or None, got 0"),
        ({"on_compaction": "print"}, TypeError, r"on_compaction must be a callable or None, got 'print'"),
    ],
)
def test_bad_arguments_are_refused_at_construction(kwargs: dict[str, object], error: type, message: str) -> None:
    """A threshold of 0, a non-int, a summary budget not below the threshold, ... are refused by name and value."""
    with pytest.raises(error, match=message):
        CompactingSession(InMemorySession(), Summariser().model, **kwargs)  # type: ignore[arg-type]


def test_the_session_and_the_model_are_checked() -> None:
    """A session class, a string or a model name is refused with what is allowed; the defaults are the original's."""
    with pytest.raises(TypeError, match=r"inner must be a Session .*got <class .*InMemorySession.*; pass the session"):
        CompactingSession(InMemorySession, Summariser().model)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"inner must be a Session"):
        CompactingSession("alice", Summariser().model)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"model must be a Model .*OpenAIModel.chat"):
        CompactingSession(InMemorySession(), "gpt-5-mini")  # type: ignore[arg-type]
    session = CompactingSession(InMemorySession(session_id="bob"), Summariser().model)
    assert (session.session_id, session.max_tokens, session.summary_tokens) == ("bob", 8000, 2000)


# The Session promises, through the wrapper


async def test_the_wrapper_keeps_the_session_promises(store: StoreBase) -> None:
    """Under the budget the wrapper is its session: same watermarks, order, exclusive `since`, snapshots."""
    summariser = Summariser()
    session = CompactingSession(store.session("alice"), summariser.model, max_tokens=BUDGET)
    first = await session.append([UserMessage("one"), UserMessage("two")])
    assert await session.append([]) == first == 2
    second = await session.append([UserMessage("three")])
    assert second == 3
    assert await session.items(since=first) == (UserMessage("three"),)
    assert await session.items(since=second) == ()
    assert await session.snapshot() == SessionSnapshot(
        (UserMessage("one"), UserMessage("two"), UserMessage("three")), 3
    )
    assert await store.session("alice").items() == await session.items()
    assert summariser.prompts == []


async def test_sixteen_concurrent_writers_through_the_wrapper_each_land_once(store: StoreBase) -> None:
    """16 tasks x 10 appends, compacting as they go: every item is in the log once, each writer's order kept."""
    summariser = Summariser()
    session = CompactingSession(store.session("shared"), summariser.model, max_tokens=BUDGET)

    async def writer(w: int) -> None:
        for i in range(10):
            await session.append([UserMessage(f"w{w}-{i} " + "pad " * 10)])

    async with trio.open_nursery() as nursery:
        for w in range(16):
            nursery.start_soon(writer, w)
    log = await session.items()
    texts = [item.text.split()[0] for item in log if isinstance(item, UserMessage)]
    assert sorted(texts) == sorted(f"w{w}-{i}" for w in range(16) for i in range(10))
    for w in range(16):
        assert [t for t in texts if t.startswith(f"w{w}-")] == [f"w{w}-{i}" for i in range(10)]
    assert len(markers(log)) == len(summariser.prompts) >= 2  # it did compact, and each summary is one marker
    assert estimate_tokens(visible(Conversation(log))) <= BUDGET + 50


async def test_a_failed_append_propagates_and_asks_no_summary(store: StoreBase) -> None:
    """The wrapped session's write error comes out of `append`; nothing is written and no summary is asked."""
    summariser = Summariser()
    session = CompactingSession(store.session("alice"), summariser.model, max_tokens=BUDGET)
    await session.append([long(1)])
    with pytest.raises(StoreError, match="cannot be stored"):
        await session.append([answer(1), UNSTORABLE])  # with it, the history would pass the budget
    assert await session.items() == (long(1),)
    assert summariser.prompts == []


# Compacting


async def test_a_resumed_history_over_the_budget_is_compacted_on_the_first_append(store: StoreBase) -> None:
    """A backlog written before the wrapper existed is summarised on the wrapper's first append; the log keeps
    every item and its view is the summary, then the last turn (the last answer and what followed it)."""
    await store.session("alice").append(backlog(3))
    summariser = Summariser()
    reports: list[ConversationCompacted | CompactionSkipped] = []
    session = CompactingSession(
        store.session("alice"), summariser.model, max_tokens=BUDGET, on_compaction=reports.append
    )
    assert await session.append([UserMessage("next?")]) == 7
    log = await store.session("alice").items()
    assert log[:7] == (*backlog(3), UserMessage("next?")) and len(log) == 8
    assert len(summariser.prompts) == 1 and "[user] 0: word" in summariser.prompts[0]
    summary = "summary #1 of 5 lines"
    assert log[7] == Compacted(summary, kept=2)
    view = (SystemMessage(summary_text(summary)), answer(2), UserMessage("next?"))
    assert tuple(visible(Conversation(log))) == view
    (report,) = reports
    assert isinstance(report, ConversationCompacted)
    assert (report.summary, report.replaced) == (summary, 5)
    assert report.tokens_before > BUDGET >= report.tokens_after


async def test_a_history_under_the_budget_is_counted_once_then_estimated() -> None:
    """Below the budget the log is read on the first append only; later appends add up their own tokens."""

    class Counted(InMemorySession):
        reads = 0

        async def snapshot(self) -> SessionSnapshot:
            self.reads += 1
            return await super().snapshot()

    inner = Counted()
    summariser = Summariser()
    session = CompactingSession(inner, summariser.model, max_tokens=BUDGET)
    for n in range(5):
        await session.append([UserMessage(f"short {n}")])
    assert inner.reads == 1
    await session.append([long(1)])  # 5 short + one long: still under
    assert inner.reads == 1
    await session.append([answer(1)])  # the estimate passes the budget: now the log is read, and compacted
    assert inner.reads == 2 and len(summariser.prompts) == 1


async def test_a_lone_summary_over_the_budget_is_not_compacted_again(store: StoreBase) -> None:
    """A view that is one summary (however long), or one system message, asks for no summary and adds no marker."""
    huge = "summary " * 200
    await store.session("alice").append([*backlog(2), Compacted(huge, kept=0)])
    await store.session("bob").append([SystemMessage("rules " * 300)])
    summariser = Summariser()
    for name in ("alice", "bob"):
        session = CompactingSession(store.session(name), summariser.model, max_tokens=BUDGET)
        before = await session.items()
        await session.append([])
        await session.append([])
        assert await session.items() == before
    assert summariser.prompts == []


async def test_a_failed_summary_is_skipped_with_a_warning_and_the_append_kept(
    store: StoreBase, caplog: pytest.LogCaptureFixture
) -> None:
    """A model error is swallowed: the items are stored, no marker is added, a warning is logged and reported."""
    model = ScriptedModel([fail("the summariser is down"), reply("a summary at last")])
    reports: list[ConversationCompacted | CompactionSkipped] = []
    session = CompactingSession(store.session("alice"), model, max_tokens=BUDGET, on_compaction=reports.append)
    with caplog.at_level(logging.WARNING, logger="helikon_fc.sessions"):
        assert await session.append(backlog(2)) == 4
    assert await session.items() == tuple(backlog(2))
    assert len(reports) == 1 and isinstance(reports[0], CompactionSkipped)
    assert "the summary call failed" in reports[0].reason and "the summariser is down" in reports[0].reason
    assert "session 'alice': compaction skipped: the summary call failed" in caplog.text
    await session.append([UserMessage("again")])  # still over the budget: the next append tries again
    assert markers(await session.items()) == [Compacted("a summary at last", kept=2)]
    assert isinstance(reports[-1], ConversationCompacted)


async def test_a_blank_summary_is_skipped(store: StoreBase, caplog: pytest.LogCaptureFixture) -> None:
    """A summary of whitespace adds no marker and reports the skip."""
    reports: list[ConversationCompacted | CompactionSkipped] = []
    session = CompactingSession(
        store.session("alice"), Summariser("  \n ").model, max_tokens=BUDGET, on_compaction=reports.append
    )
    with caplog.at_level(logging.WARNING, logger="helikon_fc.sessions"):
        await session.append(backlog(2))
    assert await session.items() == tuple(backlog(2))
    assert reports == [CompactionSkipped(BLANK_SUMMARY)]
    assert BLANK_SUMMARY in caplog.text


async def test_a_slow_summary_is_skipped_after_its_timeout(autojump_clock: trio.testing.MockClock) -> None:
    """A summary call that outlasts `summary_timeout` is abandoned there; the append returns, uncompacted."""
    reports: list[ConversationCompacted | CompactionSkipped] = []
    session = CompactingSession(
        InMemorySession(),
        Summariser(latency=100).model,
        max_tokens=BUDGET,
        summary_timeout=5,
        on_compaction=reports.append,
    )
    start = trio.current_time()
    assert await session.append(backlog(2)) == 4
    assert trio.current_time() - start == pytest.approx(5)
    assert markers(await session.items()) == []
    assert reports == [CompactionSkipped("the summary call took longer than summary_timeout (5 s)")]


async def test_a_cancelled_summary_call_leaves_the_items_stored(autojump_clock: trio.testing.MockClock) -> None:
    """Cancelled while its summary is written, `append` gives up the compaction; its items are kept, no marker."""
    inner = InMemorySession()
    session = CompactingSession(inner, Summariser(latency=100).model, max_tokens=BUDGET, summary_timeout=None)
    with trio.move_on_after(3) as scope:
        await session.append(backlog(2))
    assert scope.cancelled_caught
    assert await inner.items() == tuple(backlog(2))
    await session.append([UserMessage("later")])  # the next append compacts (the summariser answers in time)
    assert len(markers(await inner.items())) == 1


async def test_consecutive_compactions_chain(store: StoreBase) -> None:
    """The second summary is asked of a transcript holding the first; the view then shows the second alone."""
    summariser = Summariser()
    session = CompactingSession(store.session("alice"), summariser.model, max_tokens=BUDGET)
    await session.append(backlog(2))
    await session.append(backlog(2))
    assert len(summariser.prompts) == 2
    assert "[system] Summary of the conversation so far:\nsummary #1 of 3 lines" in summariser.prompts[1]
    log = await session.items()
    assert len(markers(log)) == 2
    assert len(log) == 2 * len(backlog(2)) + 2
    view = visible(Conversation(log))
    assert view[0] == SystemMessage(summary_text("summary #2 of 5 lines"))
    assert not any(isinstance(item, SystemMessage) for item in view[1:])


async def test_concurrent_appends_compact_once_and_stay_in_view(autojump_clock: trio.testing.MockClock) -> None:
    """Appends landing while a summary is written neither wait for it nor start another; the marker keeps them
    all in view (on an `InMemorySession`: a store's worker thread would let the virtual clock jump past the call)."""
    summariser = Summariser(latency=1)
    inner = InMemorySession(backlog(2))
    session = CompactingSession(inner, summariser.model, max_tokens=BUDGET)
    returned: dict[str, float] = {}
    start = trio.current_time()

    async def append(text: str) -> None:
        await session.append([UserMessage(text)])
        returned[text] = trio.current_time() - start

    async with trio.open_nursery() as nursery:
        nursery.start_soon(append, "first")
        await trio.sleep(0.5)  # the summary call is under way
        for n in range(5):
            nursery.start_soon(append, f"meanwhile {n}")
    assert len(summariser.prompts) == 1
    assert returned["first"] >= 1 and all(returned[f"meanwhile {n}"] < 1 for n in range(5))  # they did not wait
    log = await session.items()
    assert markers(log) == [Compacted("summary #1 of 3 lines", kept=7)] and isinstance(log[-1], Compacted)
    view = visible(Conversation(log))
    shown = [item.text for item in view[1:] if isinstance(item, UserMessage)]
    assert shown[0] == "first" and sorted(shown[1:]) == [f"meanwhile {n}" for n in range(5)]  # in landing order


async def test_an_error_reading_the_history_propagates() -> None:
    """The wrapped session's read error comes out of `append`, after its items were stored."""

    class Unreadable(InMemorySession):
        async def snapshot(self) -> SessionSnapshot:
            raise StoreError("the database went away")

    inner = Unreadable()
    session = CompactingSession(inner, Summariser().model, max_tokens=BUDGET)
    with pytest.raises(StoreError, match="the database went away"):
        await session.append([UserMessage("kept")])
    assert await inner.items() == (UserMessage("kept"),)


# Through a Runner


async def test_a_run_on_a_compacted_session_sees_the_summary(store: StoreBase) -> None:
    """The first run's end passes the budget and compacts; the second run's model is shown the summary, then
    the last turn and its own input, and none of the older items."""
    summariser = Summariser()
    ctx = RunContext(None, session=CompactingSession(store.session("alice"), summariser.model, max_tokens=BUDGET))
    first_model = ScriptedModel([reply(f"answer: {LONG}")])
    agent = LlmAgent(name="a", model=first_model)
    events = await drain(Runner().run(agent, ctx, AgentInput.from_user_text(f"question: {LONG}")))
    assert isinstance(events[-1], RunCompleted) and len(summariser.prompts) == 1
    second_model = ScriptedModel([reply("short")])
    events = await drain(Runner().run(agent.with_model(second_model), ctx, AgentInput.from_user_text("and now?")))
    assert isinstance(events[-1], RunCompleted)
    shown = tuple(second_model.requests[0].items)
    assert shown == (
        SystemMessage(summary_text("summary #1 of 1 lines")),
        AssistantMessage(f"answer: {LONG}", "a"),
        UserMessage("and now?"),
    )
    log = await store.session("alice").items()
    assert UserMessage(f"question: {LONG}") in log  # the log keeps what the view no longer shows
