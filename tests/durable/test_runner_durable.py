"""`Runner(config, store=...)`: run ids, resume, refusals, statuses, idempotency keys."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
import trio

from helikon_fc import (
    AgentAsTool,
    AgentInput,
    IncompatibleRunError,
    LlmAgent,
    RunContext,
    Runner,
    RunResultStreaming,
    RunStarted,
    Tool,
    ToolContext,
    function_tool,
)
from helikon_fc.agents.protocol import Agent, RunStream
from helikon_fc.core import (
    AgentEvent,
    MessageOutput,
    ModelFailureKind,
    ModelRequest,
    RunCompleted,
    RunFailed,
    ToolResult,
    TurnStarted,
)
from helikon_fc.stores import MemoryStore, RunNotFound, RunRecord, RunRecordConflict, RunStatus, RunSummary
from helikon_fc.testing import FunctionModel, call, call_tools, fail, reply
from helikon_fc.testing.script import ScriptedTurn


def _tool_rounds(request: ModelRequest) -> int:
    return sum(isinstance(item, ToolResult) for item in request.items)


def _agent(calls: list[tuple[str, str]], name: str = "worker", extra_tool: bool = False) -> LlmAgent[None]:
    """An agent whose one round calls `slow` four times at once (1..4 s), then answers; `calls` logs
    each invocation as ``(run_id, call_id)``."""

    @function_tool
    async def slow(ctx: ToolContext[None], seconds: float) -> str:
        """Wait, then report.

        Args:
            seconds: how long.
        """
        await trio.sleep(seconds)
        calls.append((ctx.run_id or "", ctx.call_id))
        return f"waited {seconds}"

    @function_tool
    def other() -> str:
        """Another tool."""
        return "other"

    def turn(request: ModelRequest) -> ScriptedTurn:
        if _tool_rounds(request) == 0:
            return call_tools(*(call("slow", seconds=float(n)).with_id(f"c{n}") for n in (1, 2, 3, 4)))
        return reply("all done")

    tools: list[Tool[None]] = [slow, other] if extra_tool else [slow]
    return LlmAgent(name=name, model=FunctionModel(turn), tools=tools)


async def _collect(stream: RunStream, into: list[AgentEvent] | None = None) -> list[AgentEvent]:
    events: list[AgentEvent] = [] if into is None else into
    async with stream as received:
        async for event in received:
            events.append(event)
    return events


async def _crash_at(runner: Runner, agent: Agent[None], run_id: str, seconds: float) -> list[AgentEvent]:
    """The events delivered until the run is stopped dead at `seconds` (virtual)."""
    events: list[AgentEvent] = []
    with trio.move_on_after(seconds):
        stream = runner.run(agent, RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id=run_id)
        await _collect(stream, events)
    return events


async def test_a_run_gets_a_fresh_id_on_its_run_started_and_result() -> None:
    """Without `run_id` the runner records the run under a new UUID, reported on `RunStarted` and the result."""
    store = MemoryStore()
    result = await RunResultStreaming(
        Runner(store=store).run(_agent([]), RunContext.ephemeral(None), AgentInput.from_user_text("go"))
    ).collect()
    assert result.run_id is not None and len(result.run_id) == 36
    assert result.events[0] == RunStarted("worker", result.run_id)
    assert [(s.run_id, s.status, s.last_kind) for s in await store.runs()] == [
        (result.run_id, "completed", "run_finished")
    ]


async def test_a_run_id_needs_a_store_and_is_unique() -> None:
    """`run_id=` without a store is refused; a second run under a recorded id fails to start."""
    with pytest.raises(ValueError, match="needs a store"):
        Runner().run(_agent([]), RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id="r")
    with pytest.raises(ValueError, match="resume needs the store"):
        Runner().resume("r", _agent([]), RunContext.ephemeral(None))
    store = MemoryStore()
    await _collect(Runner(store=store).run(_agent([]), RunContext.ephemeral(None), AgentInput(()), run_id="r"))
    with pytest.raises(RunRecordConflict, match=r"'r'.*runner\.resume"):
        await _collect(Runner(store=store).run(_agent([]), RunContext.ephemeral(None), AgentInput(()), run_id="r"))


async def test_resuming_an_unknown_run_names_it() -> None:
    """`resume` of an id nothing is recorded under raises `RunNotFound` naming the id."""
    with pytest.raises(RunNotFound, match="'nope'"):
        await _collect(Runner(store=MemoryStore()).resume("nope", _agent([]), RunContext.ephemeral(None)))


async def test_a_changed_agent_is_refused(autojump_clock: object) -> None:
    """An agent whose tools changed cannot continue a run recorded by the old one; the message says why."""
    store = MemoryStore()
    await _crash_at(Runner(store=store), _agent([]), "r", 2.5)
    changed = _agent([], extra_tool=True)
    with pytest.raises(IncompatibleRunError, match=r"'r'.*tools, handoffs, output type or structure changed"):
        await _collect(Runner(store=store).resume("r", changed, RunContext.ephemeral(None)))
    renamed = _agent([], name="someone-else")
    with pytest.raises(IncompatibleRunError, match=r"recorded by agent '\w+', not 'someone-else': the agent's name"):
        await _collect(Runner(store=store).resume("r", renamed, RunContext.ephemeral(None)))


async def test_a_crash_mid_round_reruns_only_the_unfinished_calls(autojump_clock: object) -> None:
    """Four calls of 1-4 s, crash at 2.5 s: the resumed run makes only calls 3 and 4, with the same keys."""
    store = MemoryStore()
    calls: list[tuple[str, str]] = []
    crashed = await _crash_at(Runner(store=store), _agent(calls), "r", 2.5)
    assert calls == [("r", "c1"), ("r", "c2")]
    assert (await store.run_summary("r")).status == "running"
    resumed = await _collect(Runner(store=store).resume("r", _agent(calls), RunContext.ephemeral(None)))
    assert calls == [("r", "c1"), ("r", "c2"), ("r", "c3"), ("r", "c4")]
    assert isinstance(resumed[-1], RunCompleted)
    assert resumed[-1].usage.requests == 2  # the first model call was not made again
    assert resumed[0] == RunStarted("worker", "r")
    # what was delivered before is not delivered again
    assert [type(event).__name__ for event in crashed if type(event).__name__ in ("TurnStarted", "ToolCallItem")] == [
        "TurnStarted",
        *["ToolCallItem"] * 4,
    ]
    assert not any(type(event).__name__ == "ToolCallItem" or event == TurnStarted(0) for event in resumed)


async def test_resuming_a_finished_run_gives_back_its_answer_and_terminal(autojump_clock: object) -> None:
    """A finished run resumes to its answer (its last message) and terminal event, or to all its events with
    ``replay=True``; nothing runs."""
    store = MemoryStore()
    calls: list[tuple[str, str]] = []
    first = await _collect(
        Runner(store=store).run(_agent(calls), RunContext.ephemeral(None), AgentInput(()), run_id="r")
    )
    again = await _collect(Runner(store=store).resume("r", _agent(calls), RunContext.ephemeral(None)))
    assert again == [RunStarted("worker", "r"), first[-2], first[-1]]
    assert isinstance(first[-2], MessageOutput) and first[-2].item.text == "all done"
    replayed = await _collect(Runner(store=store).resume("r", _agent(calls), RunContext.ephemeral(None), replay=True))
    assert replayed == first
    assert len(calls) == 4


async def test_a_failed_run_is_listed_as_failed() -> None:
    """A run whose model fails ends `failed` in `store.runs()`, and resuming it gives the same failure."""
    store = MemoryStore()
    agent = LlmAgent(name="flaky", model=FunctionModel(lambda request: fail(ModelFailureKind.UNAVAILABLE)))
    first = await _collect(Runner(store=store).run(agent, RunContext.ephemeral(None), AgentInput(()), run_id="f"))
    assert isinstance(first[-1], RunFailed)
    assert (await store.run_summary("f")).status == "failed"
    again = await _collect(Runner(store=store).resume("f", agent, RunContext.ephemeral(None)))
    assert again[-1] == first[-1]


def _counting(answer: Callable[[ModelRequest], ScriptedTurn], log: list[int]) -> FunctionModel:
    def turn(request: ModelRequest) -> ScriptedTurn:
        log.append(len(request.items))
        return answer(request)

    return FunctionModel(turn)


async def test_a_finished_model_call_is_not_made_again(autojump_clock: object) -> None:
    """Crash while the tools run: the resumed run's first model call is the second turn's."""
    store = MemoryStore()
    seen: list[int] = []

    def answer(request: ModelRequest) -> ScriptedTurn:
        if _tool_rounds(request) == 0:
            return call_tools(call("slow", seconds=5.0).with_id("only"))
        return reply("done")

    def agent() -> LlmAgent[None]:
        return LlmAgent(name="worker", model=_counting(answer, seen), tools=list(_agent([]).tools))

    await _crash_at(Runner(store=store), agent(), "m", 1.0)
    assert seen == [1]
    await _collect(Runner(store=store).resume("m", agent(), RunContext.ephemeral(None)))
    assert seen == [1, 3]


def _asker() -> LlmAgent[None]:
    """An agent that asks a helper (an `AgentAsTool` sub-run making one model call) once, then answers."""
    helper = LlmAgent(name="helper", model=FunctionModel(lambda request: reply("helped")), description="Helps.")

    def turn(request: ModelRequest) -> ScriptedTurn:
        if _tool_rounds(request) == 0:
            return call_tools(call("helper", input="please").with_id("ask"))
        return reply("asked")

    return LlmAgent(name="asker", model=FunctionModel(turn), tools=[AgentAsTool(helper)])


async def test_a_finished_run_replays_no_terminal_of_its_own_before_its_end(autojump_clock: object) -> None:
    """Rule: each model call counts once, at the run that made it, live or replayed. A finished run's
    last boundary records its terminal among its events, but the live run ended with that terminal
    instead of sending it; replaying it too let a caller take it as the run's end (an agent-as-tool's
    `run_child` settled its usage before the replayed model answers reached the meter, so a resumed
    parent counted the sub-run twice, or here the runner took the unmetered terminal without the
    sub-run's call)."""
    store = MemoryStore()
    first = await _collect(Runner(store=store).run(_asker(), RunContext.ephemeral(None), AgentInput(()), run_id="r"))
    completed = first[-1]
    assert isinstance(completed, RunCompleted)
    assert completed.usage.requests == 3  # two of the asker's, one of the helper's
    replayed = await _collect(Runner(store=store).resume("r", _asker(), RunContext.ephemeral(None), replay=True))
    assert replayed == first
    assert [event for event in replayed if isinstance(event, RunCompleted | RunFailed)] == [completed]


def test_a_runner_checks_its_store_when_built() -> None:
    """`Runner(store=...)` refuses what is not a run store, naming the argument; a path gets a hint."""
    expected = r"Runner: store must be a RunStore .*got 'runs\.db' \(str\); open a store on it"
    with pytest.raises(TypeError, match=expected):
        Runner(store="runs.db")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"pass a store object, e\.g\. MemoryStore"):
        Runner(store=MemoryStore)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"got 3 \(int\)"):
        Runner(store=3)  # type: ignore[arg-type]
    assert Runner(store=MemoryStore()).store is not None


class _CountingStore(MemoryStore):
    """A `MemoryStore` that logs each call: ``("write", [kinds...])`` per transaction, ``("read", name)`` per read."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, object]] = []

    async def create_run(self, run_id: str, agent: str, records: Sequence[RunRecord] = ()) -> None:
        self.calls.append(("write", [record.kind for record in records]))
        await super().create_run(run_id, agent, records)

    async def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus) -> None:
        self.calls.append(("write", [record.kind for record in records]))
        await super().append_run_records(run_id, records, status)

    async def read_run_records(self, run_id: str, since: int = -1) -> tuple[RunRecord, ...]:
        self.calls.append(("read", "read_run_records"))
        return await super().read_run_records(run_id, since)

    async def run_summary(self, run_id: str) -> RunSummary:
        self.calls.append(("read", "run_summary"))
        return await super().run_summary(run_id)


async def test_a_new_run_writes_one_transaction_per_boundary_and_reads_nothing(autojump_clock: object) -> None:
    """A run under a new id looks nothing up; its opening goes with its first boundary, a model answer
    with the boundary after it, and a round's last tool result with the boundary the round ends in."""
    store = _CountingStore()

    @function_tool
    def lookup(key: str) -> str:
        """Look a key up.

        Args:
            key: the key.
        """
        return key.upper()

    def turn(request: ModelRequest) -> ScriptedTurn:
        if _tool_rounds(request) == 0:
            return call_tools(call("lookup", key="a").with_id("k1"))
        return reply("done")

    agent = LlmAgent(name="one", model=FunctionModel(turn), tools=[lookup])
    await _collect(Runner(store=store).run(agent, RunContext.ephemeral(None), AgentInput.from_user_text("go")))
    assert store.calls == [
        ("write", ["run_opened", "boundary"]),
        ("write", ["model_answered", "boundary"]),
        ("write", ["tool_finished", "boundary"]),
        ("write", ["model_answered", "boundary"]),
        ("write", ["run_finished"]),
    ]


async def test_a_round_records_each_call_as_it_finishes_but_the_last(autojump_clock: object) -> None:
    """In a round of four calls (1..4 s), calls 1-3 are each written as they finish; call 4's result
    goes with the boundary that follows the round."""
    store = _CountingStore()
    await _collect(Runner(store=store).run(_agent([]), RunContext.ephemeral(None), AgentInput.from_user_text("go")))
    writes = [kinds for what, kinds in store.calls if what == "write"]
    assert writes[2:6] == [["tool_finished"], ["tool_finished"], ["tool_finished"], ["tool_finished", "boundary"]]
