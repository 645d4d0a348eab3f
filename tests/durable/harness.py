"""Running the crash scenario once, to its end or until a crash, and what the comparisons need."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TypeVar, cast

import attrs
import trio
from tests.durable.scenario import build

from helikon_fc import AgentInput, RunContext, Runner
from helikon_fc.core import AgentEvent, AgentUpdated, RunCompleted, RunFailed, RunStarted, Usage
from helikon_fc.core.records import RunFinished, RunRecordBody
from helikon_fc.shell.durable.run_log import decode_records
from helikon_fc.shell.durable.storage import RunRecord, RunStore

RUN_ID = "crash-run"
PROMPT = "Build the monthly report."

E = TypeVar("E", bound=AgentEvent | None)


@attrs.frozen
class Outcome:
    """What one process saw of the run."""

    events: tuple[AgentEvent, ...]
    effects: tuple[tuple[str, str, str], ...]

    @property
    def terminal(self) -> AgentEvent | None:
        """The last event if it is terminal (`settled`), else `None`."""
        last = self.events[-1] if self.events else None
        return settled(last) if isinstance(last, RunCompleted | RunFailed) else None


async def run_once(store: RunStore, *, resume: bool, replay: bool = False) -> Outcome:
    """Run (or resume) the scenario under `RUN_ID` to its end; the events delivered and effects done."""
    effects: list[tuple[str, str, str]] = []
    events: list[AgentEvent] = []
    agent = build(lambda run_id, call_id, label: effects.append((run_id, call_id, label)))
    runner = Runner(store=store)
    ctx = RunContext.ephemeral(None)
    if resume:
        stream = runner.resume(RUN_ID, agent, ctx, replay=replay)
    else:
        stream = runner.run(agent, ctx, AgentInput.from_user_text(PROMPT), run_id=RUN_ID)
    async with stream as received:
        async for event in received:
            events.append(event)
    return Outcome(tuple(events), tuple(effects))


class CrashingStore:
    """A `RunStore` over another that "crashes" the run right after its N-th record write.

    In process, a crash is the cancellation of the run's scope: nothing after the N-th write
    reaches the store (the next store call is a checkpoint, and the scope is cancelled).
    """

    def __init__(self, inner: RunStore, after: int, scope: trio.CancelScope) -> None:
        self._inner = inner
        self._after = after
        self._scope = scope
        self.writes = 0

    async def create_run(self, run_id: str, agent: str, records: Sequence[RunRecord] = ()) -> None:
        if self._scope.cancel_called:
            await trio.lowlevel.checkpoint()
        await self._inner.create_run(run_id, agent, records)
        if records:  # a run created with its first records: a record write
            self._wrote()

    async def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: str) -> None:
        if self._scope.cancel_called:
            await trio.lowlevel.checkpoint()
        await self._inner.append_run_records(run_id, records, status)  # type: ignore[arg-type]
        self._wrote()

    def _wrote(self) -> None:
        self.writes += 1
        if self.writes == self._after:
            self._scope.cancel()

    async def read_run_records(self, run_id: str, since: int = -1) -> tuple[RunRecord, ...]:
        return await self._inner.read_run_records(run_id, since)

    async def run_summary(self, run_id: str):  # type: ignore[no-untyped-def]
        return await self._inner.run_summary(run_id)

    async def runs(self):  # type: ignore[no-untyped-def]
        return await self._inner.runs()


async def crash_after(store: RunStore, writes: int) -> tuple[Outcome, int]:
    """Start the scenario and stop it dead right after its `writes`-th record write."""
    effects: list[tuple[str, str, str]] = []
    events: list[AgentEvent] = []
    with trio.CancelScope() as scope:
        crashing = CrashingStore(store, writes, scope)
        agent = build(lambda run_id, call_id, label: effects.append((run_id, call_id, label)))
        stream = Runner(store=crashing).run(
            agent, RunContext.ephemeral(None), AgentInput.from_user_text(PROMPT), run_id=RUN_ID
        )
        async with stream as received:
            async for event in received:
                events.append(event)
    return Outcome(tuple(events), tuple(effects)), crashing.writes


def settled(event: E) -> E:
    """`event` with a `RunCompleted`'s per-agent usage in agent order: the order agents first called
    their models depends on how concurrent runs interleave, which a resume changes; the split does not."""
    if isinstance(event, RunCompleted):
        parts = tuple(sorted(event.usage_by_agent, key=lambda part: part.agent))
        return cast(E, attrs.evolve(event, usage_by_agent=parts))
    return event


async def logs(store: RunStore) -> dict[str, list[RunRecordBody]]:
    """Every run's records in `store`, decoded, by run id (terminals `settled`)."""
    found: dict[str, list[RunRecordBody]] = {}
    for summary in await store.runs():
        records = await store.read_run_records(summary.run_id)
        bodies = decode_records(summary.run_id, records)
        found[summary.run_id] = [
            attrs.evolve(body, terminal=settled(body.terminal)) if isinstance(body, RunFinished) else body
            for body in bodies
        ]
    return found


def finished_calls(log: dict[str, list[RunRecordBody]]) -> set[tuple[str, str]]:
    """The ``(run_id, call_id)`` of every tool call whose result is recorded."""
    from helikon_fc.core.records import ToolFinished

    return {
        (run_id, record.result.call_id)
        for run_id, records in log.items()
        for record in records
        if isinstance(record, ToolFinished)
    }


def without_announcements(events: Sequence[AgentEvent]) -> list[str]:
    """The events as JSON, without `AgentUpdated` (re-announced freely by interleaving) and without
    the `RunStarted` of the run (a resumed stream starts with its own)."""
    return [
        json.dumps(json.loads(_wire(settled(event))), sort_keys=True)
        for event in events
        if not isinstance(event, AgentUpdated | RunStarted)
    ]


def _wire(event: AgentEvent) -> str:
    from helikon_fc.core import to_json

    return to_json(event)


def usage_of(outcome: Outcome) -> Usage:
    terminal = outcome.terminal
    assert isinstance(terminal, RunCompleted), terminal
    return terminal.usage
