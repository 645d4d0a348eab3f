"""Durable runs, the shell's half: where a run records itself, and how it picks up its records again.

A run under ``Runner(config, store=store)`` carries a `Durability` on its `RunContext`: the store,
its run id, and the replay marks it shares with every sub-run. Each agent run opens its own log
(`open_log`): a new id starts a log with `RunOpened`; an id with records is *resumed* — its
records are folded with `helikon_fc.core.records.restore` into the point to continue from. So
resuming a run is running it again under the same id: every sub-run (a handoff target, an
agent-as-tool sub-run, a workflow's child) finds its own log under its child id
(``f"{run_id}/{segment}"``) and continues it; a finished one gives back its recorded events and
terminal without calling a model or a tool.

Recorded events come back out of a resumed run *marked* (`ReplayMarks`); `Runner.resume` drops the
marked ones unless asked to replay, so a consumer sees each event once — except the events of a
run's last boundary when nothing was recorded after it (they may have been written but never
delivered), which go out again: delivery is at-least-once at the seam of the crash.

`RunRecorder.write` is the one place records are written. For crash tests it honours one
environment variable, read once at import: ``HELIKON_FC_CRASH_AFTER_WRITES=N`` makes the process
kill itself with SIGKILL right after its N-th record write (each write is one store transaction).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..core import AgentEvent, JsonValue, RunCompleted, RunPaused, from_json, to_json
from ..core.records import (
    RecordLogError,
    Resumption,
    RunFinished,
    RunOpened,
    RunRecordBody,
    fingerprint,
    record_kind,
    restore,
)
from .storage import RunNotFound, RunRecord, RunStatus, RunStore

if TYPE_CHECKING:
    from .context import RunContext
    from .input import AgentInput

_CRASH_ENV = "HELIKON_FC_CRASH_AFTER_WRITES"


class _CrashHook:
    """The test hook: SIGKILL this process after its N-th record write (0: never)."""

    __slots__ = ("after", "writes")

    def __init__(self, after: int) -> None:
        self.after = after
        self.writes = 0

    def wrote(self) -> None:
        self.writes += 1
        if self.after and self.writes >= self.after:
            os.kill(os.getpid(), signal.SIGKILL)


_CRASH = _CrashHook(int(os.environ.get(_CRASH_ENV, "0") or "0"))


class IncompatibleRunError(ValueError):
    """A recorded run cannot be continued by the agent given: its definition changed.

    Raised by `Runner.resume` before anything runs; a sub-run whose definition changed fails with
    a `RunFailed` saying the same.
    """


class ReplayMarks:
    """The events a resumed run hands out again from its records, shared by a run and its sub-runs.

    Marking keeps the event object, so its identity stays unique until it is taken back.
    """

    __slots__ = ("_marked",)

    def __init__(self) -> None:
        self._marked: dict[int, AgentEvent] = {}

    def mark(self, event: AgentEvent) -> AgentEvent:
        """Remember `event` as a replay and return it."""
        self._marked[id(event)] = event
        return event

    def has(self, event: AgentEvent) -> bool:
        """Whether `event` is marked as a replay (it stays marked)."""
        return id(event) in self._marked

    def take(self, event: AgentEvent) -> bool:
        """Whether `event` was marked as a replay (and forget it)."""
        return self._marked.pop(id(event), None) is not None


@attrs.frozen
class Durability:
    """Where a run records itself: the store, its run id, and the replay marks of the whole run tree.

    `scope` is the run's place below the run that was started (``""`` there, ``"tool:CALL/"`` in an
    agent-as-tool sub-run, ...): it qualifies the call ids a paused run asks approval for, so a
    decision given to `Runner.resume` reaches the run whose call waits.
    """

    store: RunStore
    run_id: str
    marks: ReplayMarks = attrs.field(factory=ReplayMarks, eq=False)
    scope: str = ""

    def child(self, segment: str) -> Durability:
        """The durability of a sub-run: recorded in the same store under ``f"{run_id}/{segment}"``."""
        return Durability(self.store, f"{self.run_id}/{segment}", self.marks, f"{self.scope}{segment}/")


def child_context(ctx: RunContext[Any], parent: RunContext[Any], segment: str) -> RunContext[Any]:
    """`ctx` (a sub-run's context built from `parent`) recorded under `parent`'s child id `segment`."""
    durable = parent.durable
    if durable is None:
        return ctx
    return attrs.evolve(ctx, durable=durable.child(segment))


def definition_fingerprint(pattern: str, definition: JsonValue) -> str:
    """The fingerprint of an agent of kind `pattern` defined by `definition` (see `core.records.fingerprint`)."""
    return fingerprint({"pattern": pattern, "definition": definition})


class RunRecorder:
    """Appends one run's records to its store, numbering them.

    Concurrent writers (the tool calls of one round) are serialised so seqs stay contiguous, and
    coalesced: records queued while a write is in flight go out together in the next transaction,
    and each writer returns once its own records are stored.
    """

    __slots__ = ("_lock", "_next", "_pending", "_queued", "_status", "_written", "durable")

    def __init__(self, durable: Durability, next_seq: int) -> None:
        self.durable = durable
        self._next = next_seq
        self._lock = trio.Lock()
        self._pending: list[RunRecordBody] = []
        self._queued = 0
        self._written = 0
        self._status: RunStatus = "running"

    async def write(self, *bodies: RunRecordBody, status: RunStatus = "running") -> None:
        """Store `bodies` (in one transaction with whatever else is queued), setting the run's status."""
        self._pending.extend(bodies)
        self._queued += len(bodies)
        mine = self._queued
        if status != "running":
            self._status = status
        async with self._lock:
            if self._written >= mine:
                return  # an earlier writer's transaction took these along
            batch, self._pending = self._pending, []
            seq = self._next
            records = [RunRecord(seq + i, record_kind(body), to_json(body)) for i, body in enumerate(batch)]
            await self.durable.store.append_run_records(self.durable.run_id, records, self._status)
            self._next = seq + len(records)
            self._written += len(batch)
            _CRASH.wrote()

    async def finish(self, terminal: AgentEvent, escalated: bool = False) -> None:
        """Write the run's `RunFinished` record, with the status its terminal event gives.

        A `RunPaused` run has not finished: its status becomes ``"paused"`` and nothing is appended
        (its last boundary holds the waiting calls; a resume continues from there).
        """
        if isinstance(terminal, RunPaused):
            async with self._lock:
                await self.durable.store.append_run_records(self.durable.run_id, (), "paused")
            return
        status: RunStatus = "completed" if isinstance(terminal, RunCompleted) else "failed"
        await self.write(RunFinished(terminal=terminal, escalated=escalated), status=status)


def decode_records(run_id: str, records: Sequence[RunRecord]) -> list[RunRecordBody]:
    """A run's stored records as record values.

    Raises:
        RecordLogError: a record is not in the record format (the message names the run and seq).
    """
    bodies: list[RunRecordBody] = []
    for record in records:
        try:
            bodies.append(from_json(RunRecordBody, record.body))
        except ValueError as exc:
            raise RecordLogError(f"run {run_id!r}, record {record.seq} ({record.kind}): {exc}") from None
    return bodies


async def read_opened(store: RunStore, run_id: str) -> RunOpened:
    """The `RunOpened` record of run `run_id`.

    Raises:
        RunNotFound: no run is recorded under `run_id`, or it has no records yet.
    """
    records = await store.read_run_records(run_id)
    bodies = decode_records(run_id, records[:1])
    if not bodies or not isinstance(bodies[0], RunOpened):
        raise RunNotFound(
            f"run {run_id!r} has no records to resume from (it stopped before its first one, so nothing "
            "of it ran): start it again with runner.run(..., run_id=...)"
        )
    return bodies[0]


def check_compatible(opened: RunOpened, run_id: str, agent: str, fingerprint_: str) -> None:
    """Refuse to continue run `run_id` with an agent whose definition differs from the recorded one.

    Raises:
        IncompatibleRunError: the fingerprints differ.
    """
    if opened.fingerprint != fingerprint_:
        raise IncompatibleRunError(
            f"run {run_id!r} was recorded by agent {opened.agent!r} ({opened.pattern}, definition "
            f"{opened.fingerprint}); agent {agent!r} has definition {fingerprint_}: its tools, handoffs, "
            "output type or structure changed, so the recorded run cannot be continued with it"
        )


async def open_log(
    durable: Durability, *, agent: str, pattern: str, fingerprint_: str, input: AgentInput
) -> tuple[RunRecorder, Resumption]:
    """Start run `durable.run_id`'s log, or pick it up where its records end.

    Returns:
        The recorder to write the run's next records with, and the point to continue from (a
        fresh run's point has no state and the input as its conversation).

    Raises:
        IncompatibleRunError: the run was recorded by an agent with another definition.
        RecordLogError: the stored records are not a valid log.
    """
    store, run_id = durable.store, durable.run_id
    try:
        records = await store.read_run_records(run_id)
    except RunNotFound:
        await store.create_run(run_id, agent)
        records = ()
    opened = RunOpened(agent=agent, pattern=pattern, fingerprint=fingerprint_, input=tuple(input.items))
    if not records:  # new, or created by a process that died before writing its first record
        recorder = RunRecorder(durable, 0)
        await recorder.write(opened)
        return recorder, Resumption(opened=opened, conversation=opened.input)
    point = restore(decode_records(run_id, records))
    check_compatible(point.opened, run_id, agent, fingerprint_)
    return RunRecorder(durable, point.next_seq), point


async def run_exists(store: RunStore, run_id: str) -> bool:
    """Whether a run with at least one record is kept under `run_id` (one registered by a process
    that died before its first record did nothing, and may be started again)."""
    try:
        summary = await store.run_summary(run_id)
    except RunNotFound:
        return False  # noqa: ASYNC910 - the store call that raised is a checkpoint
    return summary.records > 0


async def paused_run(store: RunStore, run_id: str) -> bool:
    """Whether the run recorded under `run_id` paused for approval (its status is ``"paused"``)."""
    try:
        summary = await store.run_summary(run_id)
    except RunNotFound:
        return False  # noqa: ASYNC910 - the store call that raised is a checkpoint
    return summary.status == "paused"
