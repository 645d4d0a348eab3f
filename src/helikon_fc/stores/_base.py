"""`StoreBase`: the public store API once for every backend (argument checks, lazy open, close);
`GroupCommitStore`, what the database backends share (worker threads and the group commit); and
`StoreSession`, the `Session` a store hands out."""

from __future__ import annotations

import abc
import time
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from types import TracebackType
from typing import Any, TypeVar

import trio

from ..core import Item
from ..shell.durable.storage import RunRecord, RunStatus, RunSummary, SessionSnapshot, StoreError
from ._batch import GroupCommit, Pending, RunAppend
from ._ops import StoreOps, check_id, check_items, check_records, check_since, check_status
from ._sql import SqlOps

T = TypeVar("T")
S = TypeVar("S", bound="StoreBase")


class StoreSession:
    """A session kept in a store: every call goes to the store, so two `StoreSession`s (or two
    processes) under one id see one history."""

    __slots__ = ("_session_id", "_store")

    def __init__(self, store: StoreBase, session_id: str) -> None:
        self._store = store
        self._session_id = session_id

    @property
    def session_id(self) -> str:
        """The id this session is kept under."""
        return self._session_id

    async def append(self, items: Sequence[Item]) -> int:
        """Add `items` at the end in one transaction, all or none; return the watermark after them.

        Raises:
            TypeError: an element of `items` is not an `Item` (nothing is written).
            StoreError: the write failed (nothing of it was kept; the session stays usable).
        """
        batch = check_items(items)
        return await self._store._call(lambda ops: ops.append_items(self._session_id, batch))

    async def items(self, since: int | None = None) -> tuple[Item, ...]:
        """The items appended after watermark `since` (all of them when ``None``), oldest first."""
        start = 0 if since is None else check_since(since, least=0, what="a watermark (an int >= 0) or None")
        return await self._store._call(lambda ops: ops.read_items(self._session_id, start))

    async def snapshot(self) -> SessionSnapshot:
        """Every item and the current watermark, read in one transaction."""
        return await self._store._call(lambda ops: ops.snapshot(self._session_id))

    def __repr__(self) -> str:
        return f"StoreSession({self._session_id!r}, store={self._store!r})"


class StoreBase(abc.ABC):
    """A `Store`: sessions and run records in one database.

    Use it as an async context manager (``async with SQLiteStore(path) as store:``), or without one:
    it opens on first use and `aclose` releases it. A closed store refuses further calls with
    `StoreError`.
    """

    def __init__(self) -> None:
        self._ops: StoreOps | None = None
        self._closed = False
        self._opening = trio.Lock()

    # -- what a backend provides -------------------------------------------------------------------

    @abc.abstractmethod
    def _open_ops(self) -> StoreOps:
        """Connect (and create or check the schema); blocking, run through `_run`."""

    @abc.abstractmethod
    async def _run(self, fn: Callable[[], T]) -> T:
        """Run the blocking `fn` where this backend's operations run (inline, or in a worker thread)."""

    def _call(self, op: Callable[[StoreOps], T] | None, append: RunAppend | None = None) -> Awaitable[T]:
        """Run `op` on the store's ops (`None`: write the run append `append`), opening the store first
        if it is not open; `_run` by default. A backend may group operations into one transaction
        (group commit), and write the run appends among them together.

        A plain function returning the awaitable, so a store call is one frame fewer while it waits."""
        return self._open_and_run(op, append)

    async def _open_and_run(self, op: Callable[[StoreOps], T] | None, append: RunAppend | None) -> T:
        ops = self._ops if self._ops is not None and not self._closed else await self._ensure_open()
        if op is None:
            assert append is not None, "a store call without an operation is a run append"
            return await self._run(partial(append.apply, ops))  # type: ignore[arg-type]  # T is None here
        return await self._run(partial(op, ops))

    # -- lifecycle ---------------------------------------------------------------------------------

    async def __aenter__(self: S) -> S:
        await self._ensure_open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Release the store's connections (waiting for calls in progress); later calls raise `StoreError`."""
        self._closed = True
        ops, self._ops = self._ops, None
        if ops is None:
            await trio.lowlevel.checkpoint()
            return
        with trio.CancelScope(shield=True):
            await self._run(ops.close)

    async def _ensure_open(self) -> StoreOps:
        async with self._opening:
            if self._closed:
                raise StoreError(f"{self!r} is closed")
            if self._ops is None:
                self._ops = await self._run(self._open_ops)
            return self._ops

    # -- sessions ----------------------------------------------------------------------------------

    def session(self, session_id: str) -> StoreSession:
        """The session kept under `session_id` (empty until something is appended).

        Raises:
            TypeError, ValueError: `session_id` is not a non-empty str.
        """
        return StoreSession(self, check_id("session_id", session_id))

    # -- run records -------------------------------------------------------------------------------

    async def create_run(self, run_id: str, agent: str, records: Sequence[RunRecord] = ()) -> None:
        """Register a new run with status ``running`` and `records` (numbered from 0) as its first records,
        in one transaction.

        Raises:
            RunRecordConflict: a run with this id exists already (nothing is written).
        """
        check_id("run_id", run_id)
        if not isinstance(agent, str):
            raise TypeError(f"agent must be a str, got {type(agent).__name__}")
        batch = check_records(run_id, records)
        now = time.time()
        await self._call(None, RunAppend(run_id, batch, "running", now, create=agent))

    async def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus) -> None:
        """Append `records` (whose seqs continue the run's log) and set the run's status, in one transaction.

        Raises:
            RunNotFound: no such run.
            RunRecordConflict: the first seq is not the run's next; nothing is written.
        """
        check_id("run_id", run_id)
        batch = check_records(run_id, records)
        known = check_status(status)
        now = time.time()
        await self._call(None, RunAppend(run_id, batch, known, now))

    async def read_run_records(self, run_id: str, since: int = -1) -> tuple[RunRecord, ...]:
        """The run's records with ``seq > since``, in order.

        Raises:
            RunNotFound: no such run.
        """
        check_id("run_id", run_id)
        after = check_since(since, least=-1, what="a seq (an int >= -1)")
        return await self._call(lambda ops: ops.read_run_records(run_id, after))

    async def run_summary(self, run_id: str) -> RunSummary:
        """One run's summary.

        Raises:
            RunNotFound: no such run.
        """
        check_id("run_id", run_id)
        return await self._call(lambda ops: ops.run_summary(run_id))

    async def runs(self) -> tuple[RunSummary, ...]:
        """Every recorded run, newest first."""
        return await self._call(lambda ops: ops.runs())


class GroupCommitStore(StoreBase):
    """A store in a database: its blocking operations run in trio worker threads, at most as many at
    once as `limiter` allows, and every operation goes through one `GroupCommit` (the operations that
    arrive while a batch is in flight go together in the next one: one thread trip, one transaction).

    A backend says how to connect (`_open_ops`) and where a batch holds the limiter (`_batch_in_thread`).
    """

    def __init__(self, limiter: trio.CapacityLimiter) -> None:
        super().__init__()
        self._limiter = limiter
        self._commits = GroupCommit(self._run_batch)

    @abc.abstractmethod
    async def _batch_in_thread(self, ops: SqlOps, batch: Sequence[Pending[Any]]) -> None:
        """Run ``ops.run_batch(batch)`` in a worker thread, holding the limiter as this backend needs."""

    async def _run(self, fn: Callable[[], T]) -> T:
        return await trio.to_thread.run_sync(fn, limiter=self._limiter)

    def _call(self, op: Callable[[StoreOps], T] | None, append: RunAppend | None = None) -> Awaitable[T]:
        """Run `op` in the next batch (group commit: one worker-thread trip, one transaction and one
        commit for every operation waiting meanwhile)."""
        if self._ops is None or self._closed:
            return self._open_and_run(op, append)
        return self._commits.submit(Pending(op, append))

    async def _open_and_run(self, op: Callable[[StoreOps], T] | None, append: RunAppend | None) -> T:
        await self._ensure_open()
        return await self._commits.submit(Pending(op, append))

    async def _run_batch(self, batch: Sequence[Pending[Any]]) -> None:
        ops = self._ops
        if ops is None:
            for pending in batch:
                pending.settle(StoreError(f"{self!r} is closed"))
            await trio.lowlevel.checkpoint()
            return
        assert isinstance(ops, SqlOps)
        await self._batch_in_thread(ops, batch)
