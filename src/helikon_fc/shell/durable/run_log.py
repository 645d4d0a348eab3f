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

`RunRecorder.write` is the one place records are written (each write is one store transaction).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs
import trio

from ...core import AgentEvent, ApprovalRequested, JsonValue, RunCompleted, RunPaused
from ...core.patterns.subrun import Relay, relay
from ...core.record_codec import Seen, decode_record, encode_log
from ...core.records import (
    RecordLogError,
    Resumption,
    RunFinished,
    RunOpened,
    RunRecordBody,
    ToolsOffered,
    fingerprint,
    record_kind,
    restore,
)
from .storage import RunNotFound, RunRecord, RunStatus, RunStore, StoreError

if TYPE_CHECKING:
    from ..input import AgentInput


def _once() -> bool:
    """`RunRecorder.write`'s `more`: no second transaction (one object for every write, not one each)."""
    return False


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


def relayed(marks: ReplayMarks | None, state: Relay, event: AgentEvent) -> tuple[Relay, tuple[AgentEvent, ...]]:
    """`subrun.relay` for a shell run with `marks` (its run tree's, `None` when unrecorded): the qualified copy
    of a replayed question is a replay too, so a resumed run drops what it delivered before the pause (the copy
    would not carry the mark the original does). Every sub-run that qualifies its questions relays through it."""
    state, passed = relay(state, event)
    if marks is not None and type(event) is ApprovalRequested and passed and passed[0] is not event:
        if marks.take(event):
            for each in passed:
                marks.mark(each)
    return state, passed


@attrs.frozen
class Durability:
    """Where a run records itself: the store, its run id, and the replay marks of the whole run tree.

    `fresh` says that nothing can be recorded under this id or any id below it yet (a run started
    under a new id, and its sub-runs): its log is then created with its first write, without being
    looked up first.
    """

    store: RunStore
    run_id: str
    marks: ReplayMarks = attrs.field(factory=ReplayMarks, eq=False)
    fresh: bool = False

    def child(self, segment: str) -> Durability:
        """The durability of a sub-run: recorded in the same store under ``f"{run_id}/{segment}"``."""
        return Durability(self.store, f"{self.run_id}/{segment}", self.marks, fresh=self.fresh)


def definition_fingerprint(pattern: str, definition: JsonValue) -> str:
    """The fingerprint of an agent of kind `pattern` defined by `definition` (see `core.records.fingerprint`)."""
    return fingerprint({"pattern": pattern, "definition": definition})


class RunRecorder:
    """Appends one run's records to its store, numbering them.

    Writes are serialised (so seqs stay contiguous) and coalesced: records queued while a write is
    in flight go out together in the next transaction, and each writer returns once its own records
    are stored. Records may also be *held* (`hold`): queued without a write of their own, they go
    out with the next write — for a record after which no side effect starts before that write.

    A recorder made with `create` creates the run with its first write (the run's first records
    in the same transaction). A write that fails leaves the recorder broken: every later write
    raises the same error (the run cannot go on recording).
    """

    __slots__ = (
        "_busy",
        "_create",
        "_failed",
        "_next",
        "_pending",
        "_queued",
        "_seen",
        "_status",
        "_waiting",
        "_written",
        "durable",
    )

    def __init__(self, durable: Durability, next_seq: int, *, create: str | None = None) -> None:
        self.durable = durable
        self._next = next_seq
        self._create = create
        self._busy = False
        """A write is in flight (a plain flag and a parking lot: cheaper than a `trio.Lock`, whose every
        acquisition is a schedule point; the store call a write makes is the checkpoint)."""
        self._waiting = trio.lowlevel.ParkingLot()
        self._pending: list[RunRecordBody] = []
        self._queued = 0
        self._written = 0
        self._status: RunStatus = "running"
        self._failed: Exception | None = None
        self._seen: Seen | None = None
        """What this recorder wrote since the last boundary, that the next one may refer to (see
        `core.record_codec`; a resumed recorder starts knowing nothing, so it refers to nothing before it)."""

    @property
    def writing(self) -> bool:
        """Whether a write is in flight (records queued now go out with it or right after it)."""
        return self._busy

    def hold(self, *bodies: RunRecordBody) -> None:
        """Queue `bodies` for the next write, without writing now."""
        self._pending.extend(bodies)
        self._queued += len(bodies)

    async def write(self, *bodies: RunRecordBody, status: RunStatus = "running") -> None:
        """Store `bodies` and everything queued before them (in one transaction with whatever else is
        queued when it starts), setting the run's status; return once they are stored."""
        self.hold(*bodies)
        del bodies  # queued: a writer waiting its turn holds nothing of them
        mine = self._queued
        if status != "running":
            self._status = status
        while self._busy:
            await self._waiting.park()
            if self._written >= mine:
                return  # an earlier writer's transaction took these along
        await self._write_all(_once)

    async def write_while(self, more: Callable[[], bool]) -> None:
        """Store everything queued, then keep storing what is queued meanwhile as long as `more()` says so
        (what is left is held for the next write)."""
        while self._busy:
            await self._waiting.park()
        await self._write_all(more)

    async def _write_all(self, more: Callable[[], bool]) -> None:  # noqa: ASYNC910 - callers queue first: a store call
        self._busy = True
        try:
            while self._written < self._queued:
                await self._flush()
                if not more():
                    break
        finally:
            self._busy = False
            self._waiting.unpark_all()

    async def _flush(self) -> None:
        """Write everything queued (the caller has made the recorder busy)."""
        if self._failed is not None:
            raise self._failed
        batch, self._pending = self._pending, []
        seq, count = self._next, len(batch)
        texts, seen = encode_log(batch, self._seen)
        records = tuple(  # a tuple: the store checks it as it is, without a copy
            RunRecord(seq + i, record_kind(body), text) for i, (body, text) in enumerate(zip(batch, texts, strict=True))
        )
        del batch, texts  # encoded: a run waiting on its write holds their text only
        store, run_id = self.durable.store, self.durable.run_id
        try:
            if self._create is not None:
                await store.create_run(run_id, self._create, records)
                self._create = None
                if self._status != "running":
                    await store.append_run_records(run_id, (), self._status)
            else:
                await store.append_run_records(run_id, records, self._status)
        except Exception as exc:
            self._failed = exc
            raise
        except BaseException:  # cancelled: whether the store kept the records is not known here
            self._failed = StoreError(f"run {run_id!r}: a record write was cancelled; this run records nothing more")
            raise
        self._next = seq + len(records)
        self._written += count
        self._seen = seen

    async def _set_status(self, status: RunStatus) -> None:
        """Set the run's status without appending a record (after every queued record is stored)."""
        while self._busy:
            await self._waiting.park()
        self._busy = True
        try:
            if self._failed is not None:
                raise self._failed
            await self.durable.store.append_run_records(self.durable.run_id, (), status)
        finally:
            self._busy = False
            self._waiting.unpark_all()

    async def finish(self, terminal: AgentEvent, escalated: bool = False, latency: float | None = None) -> None:
        """Write the run's `RunFinished` record, with the status its terminal event gives (and `latency`: how long
        the model call the run failed on took).

        A `RunPaused` run has not finished: its status becomes ``"paused"`` and nothing is appended
        (its last boundary holds the waiting calls; a resume continues from there).
        """
        if isinstance(terminal, RunPaused):
            await self.write(status="paused")  # what is still held goes out first
            await self._set_status("paused")
            return
        status: RunStatus = "completed" if isinstance(terminal, RunCompleted) else "failed"
        await self.write(RunFinished(terminal=terminal, escalated=escalated, latency=latency), status=status)


def decode_records(run_id: str, records: Sequence[RunRecord]) -> list[RunRecordBody]:
    """A run's stored records as record values.

    Raises:
        RecordLogError: a record is not in the record format (the message names the run and seq).
    """
    bodies: list[RunRecordBody] = []
    seen = Seen()
    for record in records:
        try:
            body = decode_record(record.body, seen)
        except ValueError as exc:
            raise RecordLogError(f"run {run_id!r}, record {record.seq} ({record.kind}): {exc}") from None
        bodies.append(body)
        seen = seen.after(body)
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


async def read_offered(durable: Durability) -> ToolsOffered | None:
    """The tools run ``durable.run_id`` was offered when it started (its `ToolsOffered` record), or `None`:
    no run is recorded under that id yet, or it was recorded without one.

    Raises:
        RecordLogError: its first records are not in the record format.
    """
    if durable.fresh:
        await trio.lowlevel.checkpoint()
        return None
    try:
        records = await durable.store.read_run_records(durable.run_id)
    except RunNotFound:
        return None  # noqa: ASYNC910 - the store call that raised is a checkpoint
    bodies = decode_records(durable.run_id, records[:2])
    found = bodies[1] if len(bodies) == 2 else None
    return found if isinstance(found, ToolsOffered) else None


def check_compatible(opened: RunOpened, run_id: str, agent: str, fingerprint_: str) -> None:
    """Refuse to continue run `run_id` with an agent whose definition differs from the recorded one.

    Raises:
        IncompatibleRunError: the fingerprints differ.
    """
    if opened.fingerprint == fingerprint_:
        return
    if opened.agent != agent:
        raise IncompatibleRunError(
            f"run {run_id!r} was recorded by agent {opened.agent!r}, not {agent!r}: the agent's name differs, "
            "so the recorded run cannot be continued with it (resume it with the agent that recorded it)"
        )
    raise IncompatibleRunError(
        f"run {run_id!r} was recorded by agent {opened.agent!r} ({opened.pattern}) with another definition: its "
        f"tools, handoffs, output type or structure changed (definition {opened.fingerprint} recorded, "
        f"{fingerprint_} now), so the recorded run cannot be continued with it"
    )


async def open_log(
    durable: Durability,
    *,
    agent: str,
    pattern: str,
    fingerprint_: str,
    input: AgentInput,
    hold_opening: bool = False,
    offered: ToolsOffered | None = None,
) -> tuple[RunRecorder, Resumption]:
    """Start run `durable.run_id`'s log, or pick it up where its records end.

    Args:
        hold_opening: queue a new log's `RunOpened` for the run's next write instead of writing it now
            (for a run whose next write comes before any side effect: until then, nothing of it ran).
        offered: the tools the run's sources listed, recorded right after a new log's `RunOpened`.

    Returns:
        The recorder to write the run's next records with, and the point to continue from (a
        fresh run's point has no state and the input as its conversation).

    Raises:
        IncompatibleRunError: the run was recorded by an agent with another definition.
        RecordLogError: the stored records are not a valid log.
    """
    store, run_id = durable.store, durable.run_id
    opened = RunOpened(agent=agent, pattern=pattern, fingerprint=fingerprint_, input=tuple(input.items))
    records: tuple[RunRecord, ...] = ()
    create: str | None = agent
    if not durable.fresh:
        try:
            records = await store.read_run_records(run_id)
            create = None  # registered (by a process that may have died before writing its first record)
        except RunNotFound:
            pass
    if not records:
        recorder = RunRecorder(durable, 0, create=create)
        first: tuple[RunRecordBody, ...] = (opened,) if offered is None else (opened, offered)
        if hold_opening:
            recorder.hold(*first)
        else:
            await recorder.write(*first)
        # (a fresh held log writes nothing yet: the run's first step, right after, is the checkpoint)
        return recorder, Resumption(opened=opened, offered=offered, conversation=opened.input)  # noqa: ASYNC910
    point = restore(decode_records(run_id, records))
    check_compatible(point.opened, run_id, agent, fingerprint_)
    return RunRecorder(durable, point.next_seq), point  # noqa: ASYNC910 - records were read: a store call


async def records_under(store: RunStore, run_id: str) -> int | None:
    """How many records run `run_id` has (`None`: no run is registered under that id)."""
    try:
        summary = await store.run_summary(run_id)
    except RunNotFound:
        return None  # noqa: ASYNC910 - the store call that raised is a checkpoint
    return summary.records


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
