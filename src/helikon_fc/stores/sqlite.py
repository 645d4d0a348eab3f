"""`SQLiteStore`: sessions and run records in a SQLite file (stdlib `sqlite3`, WAL), the embedded default."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, Generic, Literal, TypeVar

import trio

from ..shell.storage import StoreError
from ._base import StoreBase
from ._ops import StoreOps
from ._sql import Row, SqlOps, Tx

T = TypeVar("T")

Synchronous = Literal["full", "normal"]


class _Pending(Generic[T]):
    """One operation waiting for a batch: what to run, then what it gave (filled in the worker thread)."""

    __slots__ = ("error", "finished", "fn", "taken", "value")

    def __init__(self, fn: Callable[[], T]) -> None:
        self.fn = fn
        self.taken = False
        self.finished = trio.Event()
        self.value: T | None = None
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            self.value = self.fn()
        except Exception as exc:
            self.error = exc

    def result(self) -> T:
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]  # set by run() when no error was


class _SQLiteTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        return self._conn.execute(sql, params).rowcount

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        self._conn.executemany(sql, rows)

    def one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        row: Row | None = self._conn.execute(sql, params).fetchone()
        return row

    def all(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return self._conn.execute(sql, params).fetchall()


class _SQLiteOps(SqlOps):
    """One connection; every call holds the store's limiter, so one statement runs at a time."""

    def __init__(self, path: str, busy_timeout: float, synchronous: Synchronous) -> None:
        self.where = f"SQLite database {path!r}"
        self._in_batch = False
        try:
            self._conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
            self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self.prepare_schema()
        except sqlite3.Error as exc:
            self._close_quietly()
            raise StoreError(f"{self.where} cannot be opened: {exc}") from exc
        except BaseException:
            self._close_quietly()
            raise

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Tx]:
        conn = self._conn
        begin, commit = ("BEGIN IMMEDIATE" if write else "BEGIN"), ("COMMIT",)
        undo: tuple[str, ...] = ("ROLLBACK",)
        if self._in_batch:  # one operation of a batch: a savepoint inside the batch's transaction
            begin, commit, undo = "SAVEPOINT op", ("RELEASE op",), ("ROLLBACK TO op", "RELEASE op")
        try:
            conn.execute(begin)
            try:
                yield _SQLiteTx(conn)
            except BaseException:
                for statement in undo:
                    conn.execute(statement)
                raise
            for statement in commit:
                conn.execute(statement)
        except sqlite3.Error as exc:
            if conn.in_transaction and not self._in_batch:
                conn.execute("ROLLBACK")
            raise StoreError(f"{self.where}: {exc}") from exc

    def run_batch(self, batch: Sequence[_Pending[Any]]) -> None:
        """Run every operation of `batch` in one transaction, each in a savepoint of its own (a failing
        one is undone alone); if the commit fails, every operation that had succeeded fails with it."""
        if len(batch) == 1:
            batch[0].run()
            return
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            for pending in batch:
                pending.error = StoreError(f"{self.where}: {exc}")
            return
        self._in_batch = True
        try:
            for pending in batch:
                pending.run()
        finally:
            self._in_batch = False
        try:
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            for pending in batch:
                if pending.error is None:
                    pending.error = StoreError(f"{self.where}: the commit failed, nothing was written: {exc}")

    def table_exists(self, tx: Tx, table: str) -> bool:
        return tx.one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)) is not None

    def close(self) -> None:
        self._conn.close()

    def _close_quietly(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()


class SQLiteStore(StoreBase):
    """A `Store` in a SQLite file: the embedded default, safe for several processes on one file.

    The store keeps one connection (WAL journal), used from trio worker threads one call at a time
    (a ``trio.CapacityLimiter(1)``); every write is one ``BEGIN IMMEDIATE`` transaction, so an
    append lands whole or not at all, even when the calling task is cancelled mid-write (the write
    finishes first). Operations that wait for the connection while another runs go together in the
    next worker-thread trip, as one transaction with a savepoint each (group commit): each still
    succeeds or fails on its own, and concurrent appends share a commit and a thread hop. Another
    process writing the same file makes a write wait up to `busy_timeout`.
    The tables are created on first use; a file written by a newer helikon_fc is refused with
    `SchemaVersionError`.

    Args:
        path: the database file (created if missing; its folder must exist), or ``":memory:"``.
        busy_timeout: seconds a write waits for another process's write lock before failing.
        synchronous: ``"full"`` (default) syncs the disk on every commit, so a commit survives a
            power loss; ``"normal"`` syncs at WAL checkpoints only: a commit still survives the
            process being killed, and costs much less.

    Raises:
        TypeError, ValueError: a bad argument (named in the message).
    """

    def __init__(
        self, path: str | os.PathLike[str], *, busy_timeout: float = 5.0, synchronous: Synchronous = "full"
    ) -> None:
        super().__init__()
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"path must be a str or a path, got {type(path).__name__}")
        self._path = os.fspath(path)
        if not self._path:
            raise ValueError("path must name a file (or ':memory:'), got ''")
        if isinstance(busy_timeout, bool) or not isinstance(busy_timeout, int | float) or not busy_timeout >= 0:
            raise ValueError(f"busy_timeout must be a number of seconds >= 0, got {busy_timeout!r}")
        if synchronous not in ("full", "normal"):
            raise ValueError(f"synchronous must be 'full' or 'normal', got {synchronous!r}")
        self._busy_timeout = float(busy_timeout)
        self._synchronous: Synchronous = synchronous
        self._limiter = trio.CapacityLimiter(1)
        self._queue: list[_Pending[Any]] = []

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    def _open_ops(self) -> _SQLiteOps:
        return _SQLiteOps(self._path, self._busy_timeout, self._synchronous)

    async def _run(self, fn: Callable[[], T]) -> T:
        return await trio.to_thread.run_sync(fn, limiter=self._limiter)

    async def _run_op(self, ops: StoreOps, fn: Callable[[], T]) -> T:
        """Queue `fn`; whoever holds the connection next runs everything queued in one worker-thread
        trip and one transaction (group commit), so concurrent appends share a commit and a thread hop."""
        assert isinstance(ops, _SQLiteOps)
        pending = _Pending(fn)
        self._queue.append(pending)
        try:
            await self._limiter.acquire()
        except trio.Cancelled:
            if pending.taken:  # a batch in flight holds it: it lands whole before the cancellation goes on
                with trio.CancelScope(shield=True):
                    await pending.finished.wait()
            else:
                self._queue.remove(pending)
            raise
        except BaseException:
            if not pending.taken:
                self._queue.remove(pending)
            raise
        try:
            if not pending.taken:
                batch, self._queue = self._queue, []
                for queued in batch:
                    queued.taken = True
                try:
                    await trio.to_thread.run_sync(partial(ops.run_batch, batch))
                finally:
                    for queued in batch:
                        queued.finished.set()
        finally:
            self._limiter.release()
        return pending.result()

    def __repr__(self) -> str:
        return f"SQLiteStore({self._path!r})"
