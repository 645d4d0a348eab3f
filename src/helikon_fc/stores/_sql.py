"""`SqlOps`: the store's operations written once in SQL, for SQLite and PostgreSQL alike.

A backend gives a `transaction` (a cursor-like `Tx` inside one database transaction, rolled back on
any exception, driver errors turned into `StoreError`) and its dialect: the placeholder style, the
row lock a read-then-write needs (PostgreSQL's ``FOR UPDATE``; SQLite's ``BEGIN IMMEDIATE`` locks
the whole file already) and how to ask whether a table exists.

The tables (schema version 1)::

    helikon_schema(id = 1, version)                       -- one row: the version these tables follow
    helikon_sessions(session_id, next_seq)                -- one row per session: its watermark
    helikon_session_items(session_id, seq, item)          -- item: the wire format (`to_json`)
    helikon_runs(run_id, agent, status, records, last_kind, created_at, updated_at, ordinal)
    helikon_run_records(run_id, seq, kind, body)

Sequence numbers are 0-based and contiguous per session and per run; a session's watermark is its
item count, so ``items(since=w)`` reads ``seq >= w``.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ..core import Item
from ..shell.storage import (
    RunNotFound,
    RunRecord,
    RunRecordConflict,
    RunStatus,
    RunSummary,
    SchemaVersionError,
    SessionSnapshot,
    StoreError,
)
from ._ops import SCHEMA_VERSION, StoreOps, check_status, decode_item, encode_item

Row = tuple[Any, ...]

_TABLES = (
    "CREATE TABLE helikon_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)",
    "CREATE TABLE helikon_sessions (session_id TEXT PRIMARY KEY, next_seq BIGINT NOT NULL)",
    "CREATE TABLE helikon_session_items (session_id TEXT NOT NULL, seq BIGINT NOT NULL, item TEXT NOT NULL,"
    " PRIMARY KEY (session_id, seq))",
    "CREATE TABLE helikon_runs (run_id TEXT PRIMARY KEY, agent TEXT NOT NULL, status TEXT NOT NULL,"
    " records BIGINT NOT NULL, last_kind TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,"
    " updated_at DOUBLE PRECISION NOT NULL, ordinal BIGINT NOT NULL)",
    "CREATE TABLE helikon_run_records (run_id TEXT NOT NULL, seq BIGINT NOT NULL, kind TEXT NOT NULL,"
    " body TEXT NOT NULL, PRIMARY KEY (run_id, seq))",
)

_SUMMARY_COLUMNS = "run_id, agent, status, records, last_kind, created_at, updated_at"


class Tx(Protocol):
    """One open transaction; statements use ``?`` placeholders (a backend translates them)."""

    def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one statement; return the number of rows it changed."""
        ...

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        """Run one statement per row of parameters."""
        ...

    def one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        """The first row of a query, or `None`."""
        ...

    def all(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """Every row of a query."""
        ...


class SqlOps(StoreOps):
    """`StoreOps` over SQL; a subclass provides the transactions and the dialect."""

    lock: str = ""
    """Appended to a read whose row the transaction then writes (`` FOR UPDATE`` on PostgreSQL)."""
    where: str = "the database"
    """How errors name this database (a path, a DSN without its password)."""

    @abc.abstractmethod
    def transaction(self, *, write: bool) -> AbstractContextManager[Tx]:
        """One transaction: committed when the block ends, rolled back if it raises."""

    @abc.abstractmethod
    def table_exists(self, tx: Tx, table: str) -> bool:
        """Whether `table` exists in the database."""

    def lock_schema(self, tx: Tx) -> None:
        """Keep two processes from creating the tables at once (SQLite's write lock does already)."""

    # -- schema ------------------------------------------------------------------------------------

    def prepare_schema(self) -> None:
        """Create the tables on first use; refuse a database whose schema version is newer than ours.

        Raises:
            SchemaVersionError: the database says a version this helikon_fc does not know.
        """
        with self.transaction(write=True) as tx:
            self.lock_schema(tx)
            if not self.table_exists(tx, "helikon_schema"):
                for statement in _TABLES:
                    tx.execute(statement)
                tx.execute("INSERT INTO helikon_schema (id, version) VALUES (1, ?)", (SCHEMA_VERSION,))
                return
            row = tx.one("SELECT version FROM helikon_schema WHERE id = 1")
            if row is None:
                raise StoreError(f"{self.where}: the helikon_schema table has no version row; refusing to guess")
            version = int(row[0])
            if version > SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"{self.where} has store schema version {version}, newer than the {SCHEMA_VERSION} this "
                    "helikon_fc knows: it was written by a newer helikon_fc; upgrade to open it (nothing was read)"
                )
            if version < 1:
                raise SchemaVersionError(f"{self.where} has store schema version {version}, which never existed")

    # -- sessions ----------------------------------------------------------------------------------

    def append_items(self, session_id: str, items: Sequence[Item]) -> int:
        if not items:
            with self.transaction(write=False) as tx:
                row = tx.one("SELECT next_seq FROM helikon_sessions WHERE session_id = ?", (session_id,))
            return 0 if row is None else int(row[0])
        with self.transaction(write=True) as tx:
            tx.execute(
                "INSERT INTO helikon_sessions (session_id, next_seq) VALUES (?, 0) ON CONFLICT (session_id) DO NOTHING",
                (session_id,),
            )
            row = tx.one("SELECT next_seq FROM helikon_sessions WHERE session_id = ?" + self.lock, (session_id,))
            assert row is not None  # the row was just made, or was there
            first = int(row[0])
            for index, item in enumerate(items):  # encoded row by row: a bad item rolls back the ones before it
                tx.execute(
                    "INSERT INTO helikon_session_items (session_id, seq, item) VALUES (?, ?, ?)",
                    (session_id, first + index, encode_item(session_id, index, item)),
                )
            watermark = first + len(items)
            tx.execute("UPDATE helikon_sessions SET next_seq = ? WHERE session_id = ?", (watermark, session_id))
        return watermark

    def read_items(self, session_id: str, since: int) -> tuple[Item, ...]:
        with self.transaction(write=False) as tx:
            rows = tx.all(
                "SELECT item FROM helikon_session_items WHERE session_id = ? AND seq >= ? ORDER BY seq",
                (session_id, since),
            )
        return tuple(decode_item(session_id, text) for (text,) in rows)

    def snapshot(self, session_id: str) -> SessionSnapshot:
        items = self.read_items(session_id, 0)  # one query; seqs run 0, 1, 2, ... so the count is the watermark
        return SessionSnapshot(items, len(items))

    # -- run records -------------------------------------------------------------------------------

    def create_run(self, run_id: str, agent: str, now: float) -> None:
        with self.transaction(write=True) as tx:
            changed = tx.execute(
                "INSERT INTO helikon_runs (run_id, agent, status, records, last_kind, created_at, updated_at, ordinal)"
                " SELECT ?, ?, 'running', 0, '', ?, ?, COALESCE(MAX(ordinal), 0) + 1 FROM helikon_runs"
                " WHERE true ON CONFLICT (run_id) DO NOTHING",  # WHERE: SQLite's upsert-after-SELECT rule
                (run_id, agent, now, now),
            )
            if changed == 0:
                raise RunRecordConflict(f"run {run_id!r} exists already")

    def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus, now: float) -> None:
        with self.transaction(write=True) as tx:
            row = tx.one("SELECT records, last_kind FROM helikon_runs WHERE run_id = ?" + self.lock, (run_id,))
            if row is None:
                raise RunNotFound(f"no run is recorded under {run_id!r}")
            count, last_kind = int(row[0]), str(row[1])
            if records and records[0].seq != count:
                raise RunRecordConflict(
                    f"run {run_id!r}: the next record is seq {count}, got {records[0].seq}; nothing was written"
                )
            if records:
                tx.executemany(
                    "INSERT INTO helikon_run_records (run_id, seq, kind, body) VALUES (?, ?, ?, ?)",
                    [(run_id, record.seq, record.kind, record.body) for record in records],
                )
                count, last_kind = count + len(records), records[-1].kind
            tx.execute(
                "UPDATE helikon_runs SET records = ?, last_kind = ?, status = ?, updated_at = ? WHERE run_id = ?",
                (count, last_kind, status, now, run_id),
            )

    def read_run_records(self, run_id: str, since: int) -> tuple[RunRecord, ...]:
        with self.transaction(write=False) as tx:
            if tx.one("SELECT 1 FROM helikon_runs WHERE run_id = ?", (run_id,)) is None:
                raise RunNotFound(f"no run is recorded under {run_id!r}")
            rows = tx.all(
                "SELECT seq, kind, body FROM helikon_run_records WHERE run_id = ? AND seq > ? ORDER BY seq",
                (run_id, since),
            )
        return tuple(RunRecord(int(seq), str(kind), str(body)) for seq, kind, body in rows)

    def run_summary(self, run_id: str) -> RunSummary:
        with self.transaction(write=False) as tx:
            row = tx.one(f"SELECT {_SUMMARY_COLUMNS} FROM helikon_runs WHERE run_id = ?", (run_id,))
        if row is None:
            raise RunNotFound(f"no run is recorded under {run_id!r}")
        return _summary(row)

    def runs(self) -> tuple[RunSummary, ...]:
        with self.transaction(write=False) as tx:
            rows = tx.all(f"SELECT {_SUMMARY_COLUMNS} FROM helikon_runs ORDER BY created_at DESC, ordinal DESC")
        return tuple(_summary(row) for row in rows)


def _summary(row: Row) -> RunSummary:
    run_id, agent, status, records, last_kind, created_at, updated_at = row
    return RunSummary(
        str(run_id),
        str(agent),
        check_status(status),
        int(records),
        str(last_kind),
        float(created_at),
        float(updated_at),
    )
