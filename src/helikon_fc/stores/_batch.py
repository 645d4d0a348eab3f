"""Group commit: the operations that arrive while a batch is in flight go together in the next one.

A database store sends every operation through one `GroupCommit`. The first caller finds nothing in
flight and runs a batch of one at once; callers that arrive while a batch runs queue up, and when
it ends the first of them is woken to run the whole queue as the next batch (one worker-thread trip,
one transaction, one commit), while the others sleep until their batch is over. No task is spawned
and no lock is passed from waiter to waiter: a batch's callers are all woken together.

Each caller still gets its own outcome: the backend runs every operation of a batch in a savepoint
of its own, so a failing one is undone alone (see `SqlOps.run_batch`). A caller returns only once
the transaction holding its operation has committed, so "acknowledged" keeps meaning "durable".

Cancellation: a caller cancelled while queued leaves the queue and nothing of it is written (if it
had just been chosen to run the next batch, the next in line is chosen instead); a caller whose
operation is in a batch in flight waits for that batch to land before the cancellation goes on, so
an operation is never half-written and never written after its caller was told it was cancelled.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, Generic, TypeVar

import attrs
import trio

from ..shell.durable.storage import RunRecord, RunStatus, StoreError

T = TypeVar("T")


@attrs.frozen
class RunAppend:
    """A run append (or a run created with its first records) that a batch may write together with
    the other run appends of the batch, in a few statements instead of a few per append."""

    run_id: str
    records: tuple[RunRecord, ...]
    status: RunStatus
    now: float
    create: str | None = None
    """The agent of a run this append creates (`None`: the run exists)."""

    def apply(self, ops: Any) -> None:
        """Write this append alone on `ops` (a `StoreOps`)."""
        if self.create is not None:
            ops.create_run(self.run_id, self.create, self.now, self.records)
        else:
            ops.append_run_records(self.run_id, self.records, self.status, self.now)


class _State(enum.Enum):
    QUEUED = "queued"
    TAKEN = "taken"
    DONE = "done"


class Pending(Generic[T]):
    """One operation: what to run, and (once its batch is over) what it gave.

    A caller waiting for its batch is parked as a bare task (`task`), rescheduled when the batch
    ends or when it is chosen to run the next one: no `trio.Event` (and its parking lot) per operation.
    """

    __slots__ = ("append", "cancel", "error", "fn", "lead", "ran", "state", "task", "value")

    def __init__(self, fn: Callable[[Any], T] | None, append: RunAppend | None = None) -> None:
        self.fn = fn
        """The operation, given the store's ops (`None`: the operation is the run append `append`)."""
        self.append = append
        """Set for a run append, which the batch may write together with the others."""
        self.state = _State.QUEUED
        self.lead = False
        """Chosen to run the next batch."""
        self.task: trio.lowlevel.Task | None = None
        """The caller while it is parked waiting."""
        self.cancel: Callable[[], object] | None = None
        """The caller's cancellation, raised once its batch has landed (it was cancelled while the batch ran)."""
        self.value: T | None = None
        self.error: Exception | None = None
        self.ran = False
        """Whether it has an outcome (`value` or `error`)."""

    def run(self, ops: Any) -> None:
        """Run the operation on its own on `ops` (in the worker thread), keeping its value or error."""
        try:
            if self.fn is not None:
                self.value = self.fn(ops)
            else:
                assert self.append is not None, "an operation without fn is a run append"
                self.append.apply(ops)
        except Exception as exc:
            self.error = exc
        self.ran = True

    def settle(self, error: Exception | None) -> None:
        """Take the outcome a batch gave this operation (an error, or `None`: it succeeded, giving `None`)."""
        self.value, self.error, self.ran = None, error, True

    def result(self) -> T:
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]  # set by run() or settle() when no error was

    def wake(self) -> None:
        """Reschedule the parked caller (if it is parked)."""
        task, self.task = self.task, None
        if task is not None:
            trio.lowlevel.reschedule(task)


class GroupCommit:
    """Runs submitted operations in batches, one batch at a time (see the module docstring).

    Args:
        run_batch: runs one batch (a worker-thread trip); it must give every operation an outcome.
    """

    __slots__ = ("_busy", "_queue", "_run_batch")

    def __init__(self, run_batch: Callable[[Sequence[Pending[Any]]], Awaitable[None]]) -> None:
        self._run_batch = run_batch
        self._queue: list[Pending[Any]] = []
        self._busy = False

    async def submit(self, pending: Pending[T]) -> T:
        """Run `pending` in the next batch; its value, or its error raised."""
        await trio.lowlevel.checkpoint_if_cancelled()
        self._queue.append(pending)
        if self._busy:
            pending.task = trio.lowlevel.current_task()
            await trio.lowlevel.wait_task_rescheduled(partial(self._abort, pending))
            if pending.state is _State.DONE:
                if pending.cancel is not None:
                    pending.cancel()  # cancelled while its batch ran: it has landed, now the cancellation goes on
                return pending.result()
            assert pending.lead
        else:
            self._busy = True
            await trio.lowlevel.cancel_shielded_checkpoint()  # callers ready to run now join this batch
        await self._lead()
        return pending.result()

    def _abort(self, pending: Pending[Any], raise_cancel: Callable[[], object]) -> trio.lowlevel.Abort:
        """A parked caller is cancelled: out of the queue if still there (passing on the lead), else it
        waits for its batch to land and raises its cancellation then."""
        if pending.state is _State.QUEUED:
            pending.task = None
            self._queue.remove(pending)
            if pending.lead:
                pending.lead = False
                self._pass_on()
            return trio.lowlevel.Abort.SUCCEEDED
        pending.cancel = raise_cancel  # TAKEN: its batch lands whole first
        return trio.lowlevel.Abort.FAILED

    async def _lead(self) -> None:
        batch, self._queue = self._queue, []
        for queued in batch:
            queued.state = _State.TAKEN
        try:
            with trio.CancelScope(shield=True):  # the batch holds other callers' operations: it runs whole
                await self._run_batch(batch)
        finally:
            for queued in batch:
                if not queued.ran:
                    queued.settle(StoreError("the store's batch ended before this operation ran; it was not written"))
                queued.state = _State.DONE
                queued.wake()
            self._pass_on()

    def _pass_on(self) -> None:
        """Wake the first queued caller to run the next batch, or mark the store idle."""
        if self._queue:
            first = self._queue[0]
            first.lead = True
            first.wake()
        else:
            self._busy = False
