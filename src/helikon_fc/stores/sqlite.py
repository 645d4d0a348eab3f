"""`SQLiteStore`: sessions and run records in a SQLite file (stdlib `sqlite3`, WAL), the embedded default."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, TypeVar

import trio

from ..shell.durable.storage import StoreError
from ._base import GroupCommitStore
from ._batch import Pending
from ._sql import Row, SqlOps, Tx

T = TypeVar("T")

Synchronous = Literal["full", "normal"]


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
    """One connection, used by one batch at a time (the store's group commit) or to open and close."""

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
        except (sqlite3.Error, UnicodeEncodeError) as exc:  # UnicodeEncodeError: a lone surrogate in a value
            if conn.in_transaction and not self._in_batch:
                conn.execute("ROLLBACK")
            raise StoreError(f"{self.where}: {exc}") from exc

    @contextmanager
    def batch_transaction(self) -> Iterator[None]:
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            self._in_batch = True
            try:
                yield
            finally:
                self._in_batch = False
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def table_exists(self, tx: Tx, table: str) -> bool:
        return tx.one("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)) is not None

    def close(self) -> None:
        self._conn.close()

    def _close_quietly(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()


class SQLiteStore(GroupCommitStore):
    """A `Store` in a SQLite file: the embedded default, safe for several processes on one file.

    The store keeps one connection (WAL journal), used from a trio worker thread by one batch of
    operations at a time (group commit): an operation that finds the connection idle runs at once;
    those that arrive while a batch runs go together in the next one, as one ``BEGIN IMMEDIATE``
    transaction with a savepoint each, so each still succeeds or fails on its own while concurrent
    runs share a commit and a thread hop. A call returns once its transaction has committed; an
    append lands whole or not at all, even when the calling task is cancelled mid-write (the write
    finishes first). Another process writing the same file makes a write wait up to `busy_timeout`.
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
        super().__init__(trio.CapacityLimiter(1))
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

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    def _open_ops(self) -> _SQLiteOps:
        return _SQLiteOps(self._path, self._busy_timeout, self._synchronous)

    async def _batch_in_thread(self, ops: SqlOps, batch: Sequence[Pending[Any]]) -> None:
        async with self._limiter:  # held around the thread call: the connection cannot open or close meanwhile
            await trio.to_thread.run_sync(ops.run_batch, batch)

    def __repr__(self) -> str:
        return f"SQLiteStore({self._path!r})"
