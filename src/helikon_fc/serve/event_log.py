"""Where the server keeps what it streams: every served run's envelopes by position, and a line per run.

Positions (1, 2, 3, ... per run) are what ``Last-Event-ID`` names, so they must mean the same events after a
restart. They are not derived from the store's run records: those hold a run's events per boundary and per
sub-run, not in the order the live stream interleaved them (concurrent branches, announcements), and the
events of a boundary still in flight at a crash are not there at all. The server keeps its own log instead,
written ahead: an envelope is appended (and committed) before any client sees it, so a position a client
was given is in the log, with the same event, whatever happens to the process afterwards.

`SQLiteEventLog` keeps the log in two tables (``serve_events``, ``serve_runs``) of a SQLite file beside the run
store's (``runs.db`` -> ``runs.events.db``: a file of its own, so its writes never wait for the store's
write lock); `MemoryEventLog` keeps it for the process's lifetime.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Protocol

import attrs
import trio


@attrs.frozen
class Envelope:
    """One streamed event: its position in the run, its wire tag, and the envelope's JSON text."""

    position: int
    tag: str
    data: str


@attrs.frozen
class RunLine:
    """What the server knows of a run beyond the store's summary (how it ended, what it cost, who waits)."""

    run_id: str
    agent: str
    status: str
    started_at: float
    """Seconds since the epoch."""
    ended_at: float | None = None
    requests: int = 0
    cost: float | None = None
    error: str | None = None
    pending: str = "[]"
    """The calls a paused run waits on: a JSON list of ``{"call_id", "tool", "args"}``."""


class EventLog(Protocol):
    """The server's write-ahead log of envelopes, and its run lines."""

    async def append(self, run_id: str, envelopes: Sequence[Envelope]) -> None:
        """Append `envelopes` (positions continuing the run's) to the run's log, all or none."""
        ...

    async def read(self, run_id: str, after: int, limit: int) -> list[Envelope]:
        """At most `limit` envelopes of the run with ``position > after``, in order."""
        ...

    async def last_position(self, run_id: str) -> int:
        """The run's last logged position (0 when nothing is logged)."""
        ...

    async def put_line(self, line: RunLine) -> None:
        """Insert or replace the run's line."""
        ...

    async def line(self, run_id: str) -> RunLine | None:
        """The run's line, or `None`."""
        ...

    async def lines(self) -> list[RunLine]:
        """Every run's line."""
        ...

    async def aclose(self) -> None:
        """Release the log's resources."""
        ...


class MemoryEventLog:
    """An `EventLog` in memory: lost with the process (so is a `MemoryStore`'s every run)."""

    def __init__(self) -> None:
        self._events: dict[str, list[Envelope]] = {}
        self._lines: dict[str, RunLine] = {}

    async def append(self, run_id: str, envelopes: Sequence[Envelope]) -> None:
        await trio.lowlevel.checkpoint()
        self._events.setdefault(run_id, []).extend(envelopes)

    async def read(self, run_id: str, after: int, limit: int) -> list[Envelope]:
        await trio.lowlevel.checkpoint()
        logged = self._events.get(run_id, [])
        return logged[after : after + limit]  # positions are 1, 2, 3, ...: position p is at index p - 1

    async def last_position(self, run_id: str) -> int:
        await trio.lowlevel.checkpoint()
        return len(self._events.get(run_id, []))

    async def put_line(self, line: RunLine) -> None:
        await trio.lowlevel.checkpoint()
        self._lines[line.run_id] = line

    async def line(self, run_id: str) -> RunLine | None:
        await trio.lowlevel.checkpoint()
        return self._lines.get(run_id)

    async def lines(self) -> list[RunLine]:
        await trio.lowlevel.checkpoint()
        return list(self._lines.values())

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS serve_events (run_id TEXT NOT NULL, position INTEGER NOT NULL, "
    "tag TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, position)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS serve_runs (run_id TEXT PRIMARY KEY, agent TEXT NOT NULL, status TEXT NOT NULL, "
    "started_at REAL NOT NULL, ended_at REAL, requests INTEGER NOT NULL, cost REAL, error TEXT, "
    "pending TEXT NOT NULL)",
)
_LINE_COLUMNS = "run_id, agent, status, started_at, ended_at, requests, cost, error, pending"


Write = tuple[str, tuple[object, ...]]
"""One statement of a batch and its parameters."""
_INSERT_EVENT = "INSERT INTO serve_events VALUES (?, ?, ?, ?)"
_PUT_LINE = f"INSERT OR REPLACE INTO serve_runs ({_LINE_COLUMNS}) VALUES ({', '.join('?' * 9)})"


class _Batch:
    """The writes one transaction carries: set when it has landed, with its failure if it failed."""

    __slots__ = ("failure", "landed")

    def __init__(self) -> None:
        self.landed = trio.Event()
        self.failure: Exception | None = None


class SQLiteEventLog:
    """An `EventLog` in a SQLite file (WAL): one connection writes, another reads, each from a worker thread.

    Writes (envelopes and run lines) that arrive while a transaction is under way go together in the next
    one (group commit), so a thousand runs streaming at once share commits instead of queueing one each;
    reads never wait for writes (WAL readers see the last commit).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._connections: dict[str, sqlite3.Connection] = {}
        self._write_limiter = trio.CapacityLimiter(1)
        self._read_limiter = trio.CapacityLimiter(1)
        self._queued: list[Write] = []
        self._next = _Batch()
        self._writing = False

    async def append(self, run_id: str, envelopes: Sequence[Envelope]) -> None:
        await self._write([(_INSERT_EVENT, (run_id, e.position, e.tag, e.data)) for e in envelopes])

    async def put_line(self, line: RunLine) -> None:
        await self._write([(_PUT_LINE, attrs.astuple(line))])

    async def _write(self, writes: list[Write]) -> None:
        """Queue `writes` and return once the transaction that carries them has committed."""
        self._queued.extend(writes)
        batch = self._next
        if not self._writing:
            await self._write_batches(batch)
            return
        await batch.landed.wait()  # the task writing now takes these in its next transaction
        if batch.failure is not None:
            raise batch.failure

    async def _write_batches(self, own: _Batch) -> None:  # noqa: ASYNC910 - called with a write queued
        """Commit what is queued, batch after batch, until the queue is empty (this task is the writer);
        raise if the batch holding `own`'s writes failed (later batches' failures go to their own writers)."""
        self._writing = True
        try:
            while self._queued:
                queued, self._queued = self._queued, []
                batch, self._next = self._next, _Batch()
                try:
                    with trio.CancelScope(shield=True):  # a batch holds other runs' writes: it lands whole
                        async with self._write_limiter:
                            await trio.to_thread.run_sync(self._commit, queued)
                except Exception as exc:
                    batch.failure = exc
                finally:
                    batch.landed.set()
        finally:
            self._writing = False
        if own.failure is not None:
            raise own.failure

    def _connection(self, role: str) -> sqlite3.Connection:
        """The `role` ("write" or "read") connection, opened on first use (in a worker thread)."""
        conn = self._connections.get(role)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # a commit survives the process being killed
            for statement in _SCHEMA:
                conn.execute(statement)
            self._connections[role] = conn
        return conn

    def _commit(self, writes: list[Write]) -> None:
        conn = self._connection("write")
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            for sql, params in writes:
                conn.execute(sql, params)

    async def read(self, run_id: str, after: int, limit: int) -> list[Envelope]:
        sql = "SELECT position, tag, data FROM serve_events WHERE run_id = ? AND position > ? ORDER BY position LIMIT ?"
        rows = await self._query(sql, (run_id, after, limit))
        return [Envelope(position, tag, data) for position, tag, data in rows]

    async def last_position(self, run_id: str) -> int:
        rows = await self._query("SELECT MAX(position) FROM serve_events WHERE run_id = ?", (run_id,))
        last: int | None = rows[0][0]
        return last or 0

    async def line(self, run_id: str) -> RunLine | None:
        rows = await self._query(f"SELECT {_LINE_COLUMNS} FROM serve_runs WHERE run_id = ?", (run_id,))
        return RunLine(*rows[0]) if rows else None

    async def lines(self) -> list[RunLine]:
        return [RunLine(*row) for row in await self._query(f"SELECT {_LINE_COLUMNS} FROM serve_runs", ())]

    async def _query(self, sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        def run() -> list[tuple[Any, ...]]:
            return self._connection("read").execute(sql, params).fetchall()

        async with self._read_limiter:
            return await trio.to_thread.run_sync(run)

    async def aclose(self) -> None:
        async with self._write_limiter, self._read_limiter:
            connections, self._connections = list(self._connections.values()), {}
            for conn in connections:
                await trio.to_thread.run_sync(conn.close)
