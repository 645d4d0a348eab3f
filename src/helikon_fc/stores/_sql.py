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
from ..shell.durable.storage import (
    RunNotFound,
    RunRecord,
    RunRecordConflict,
    RunStatus,
    RunSummary,
    SchemaVersionError,
    SessionSnapshot,
    StoreError,
)
from ._batch import Pending, RunAppend
from ._ops import SCHEMA_VERSION, StoreOps, check_status, decode_item, encode_item, first_seq

Row = tuple[Any, ...]

_ORDINAL_INDEX = "CREATE INDEX helikon_runs_ordinal ON helikon_runs (ordinal)"
"""Makes a new run's ``MAX(ordinal) + 1`` a lookup, not a scan (added to version-1 databases made without it)."""

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
    _ORDINAL_INDEX,
)

_SUMMARY_COLUMNS = "run_id, agent, status, records, last_kind, created_at, updated_at"

_IDS_PER_QUERY = 500
"""Run ids per ``IN (...)`` list (SQLite allows 32766 parameters since 3.32, 999 before)."""


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
        """Whether a table (or an index) named `table` exists in the database."""

    @abc.abstractmethod
    def batch_transaction(self) -> AbstractContextManager[None]:
        """One transaction around a batch: inside it, each `transaction` is a savepoint of that transaction."""

    # -- group commit ------------------------------------------------------------------------------

    def run_batch(self, batch: Sequence[Pending[Any]]) -> None:
        """Run every operation of `batch` in one transaction (blocking; in the worker thread).

        Each operation runs in a savepoint of its own, so a failing one is undone alone and the others
        land. The run appends of the batch are first tried together (`append_run_batch`); should a
        statement of that fail, each of them runs alone instead. If the transaction cannot begin or
        commit, every operation that had succeeded fails with that error: nothing of the batch was written.
        """
        if len(batch) == 1:
            batch[0].run(self)
            return
        try:
            with self.batch_transaction():
                appends = [pending for pending in batch if pending.append is not None]
                if len(appends) > 1:
                    self._append_together(appends)
                for pending in batch:
                    if pending.append is None or len(appends) == 1:
                        pending.run(self)
        except Exception as exc:
            failure = StoreError(f"{self.where}: the transaction failed, nothing of it was written: {exc}")
            for pending in batch:
                if not pending.ran or pending.error is None:
                    pending.settle(failure)

    def _append_together(self, appends: Sequence[Pending[Any]]) -> None:
        try:
            outcomes = self.append_run_batch([pending.append for pending in appends if pending.append is not None])
        except Exception:
            for pending in appends:  # one of them cannot be written: find which, each alone
                pending.run(self)
            return
        for pending, outcome in zip(appends, outcomes, strict=True):
            pending.settle(outcome)

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
            if not self.table_exists(tx, "helikon_runs_ordinal"):
                tx.execute(_ORDINAL_INDEX)

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

    def create_run(self, run_id: str, agent: str, now: float, records: Sequence[RunRecord] = ()) -> None:
        first_seq(run_id, records)
        with self.transaction(write=True) as tx:
            changed = tx.execute(
                "INSERT INTO helikon_runs (run_id, agent, status, records, last_kind, created_at, updated_at, ordinal)"
                " SELECT ?, ?, 'running', ?, ?, ?, ?, COALESCE(MAX(ordinal), 0) + 1 FROM helikon_runs"
                " WHERE true ON CONFLICT (run_id) DO NOTHING",  # WHERE: SQLite's upsert-after-SELECT rule
                (run_id, agent, len(records), records[-1].kind if records else "", now, now),
            )
            if changed == 0:
                raise RunRecordConflict(f"run {run_id!r} exists already")
            _insert_records(tx, run_id, records)

    def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus, now: float) -> None:
        with self.transaction(write=True) as tx:
            row = tx.one("SELECT records, last_kind FROM helikon_runs WHERE run_id = ?" + self.lock, (run_id,))
            if row is None:
                raise RunNotFound(f"no run is recorded under {run_id!r}")
            count, last_kind = int(row[0]), str(row[1])
            first_seq(run_id, records, count)
            _insert_records(tx, run_id, records)
            if records:
                count, last_kind = count + len(records), records[-1].kind
            tx.execute(
                "UPDATE helikon_runs SET records = ?, last_kind = ?, status = ?, updated_at = ? WHERE run_id = ?",
                (count, last_kind, status, now, run_id),
            )

    def append_run_batch(self, appends: Sequence[RunAppend]) -> list[Exception | None]:
        """Write many run appends (and runs created with their first records) in one transaction and a
        few statements: one read of the runs concerned, then one insert of every record and one update
        per run. An append that conflicts (or names no run) is left out and gets its error; if a
        statement fails, everything is undone and the error is raised (the caller then runs each
        append alone, so one bad append fails alone).

        Returns:
            Per append, in order: `None` (written) or the error it failed with (nothing of it written).
        """
        outcomes: list[Exception | None] = [None] * len(appends)
        with self.transaction(write=True) as tx:
            runs = self._runs_of(tx, sorted({append.run_id for append in appends}))
            created: list[tuple[object, ...]] = []
            rows: list[tuple[object, ...]] = []
            changed: dict[str, tuple[int, str, RunStatus, float]] = {}
            for index, append in enumerate(appends):
                run_id, records = append.run_id, append.records
                known = runs.get(run_id)
                try:
                    if append.create is not None:
                        if known is not None:
                            raise RunRecordConflict(f"run {run_id!r} exists already")
                        first_seq(run_id, records)
                        created.append((run_id, append.create, append.now))
                        known = (0, "")
                    elif known is None:
                        raise RunNotFound(f"no run is recorded under {run_id!r}")
                    else:
                        first_seq(run_id, records, known[0])
                except (RunRecordConflict, RunNotFound) as exc:
                    outcomes[index] = exc
                    continue
                rows.extend((run_id, record.seq, record.kind, record.body) for record in records)
                count, last_kind = known
                if records:
                    count, last_kind = count + len(records), records[-1].kind
                runs[run_id] = (count, last_kind)
                changed[run_id] = (count, last_kind, append.status, append.now)
            if created:
                row = tx.one("SELECT COALESCE(MAX(ordinal), 0) FROM helikon_runs")
                first = int(row[0]) + 1 if row is not None else 1
                tx.executemany(
                    "INSERT INTO helikon_runs (run_id, agent, status, records, last_kind, created_at, updated_at,"
                    " ordinal) VALUES (?, ?, 'running', 0, '', ?, ?, ?)",
                    [(run_id, agent, now, now, first + i) for i, (run_id, agent, now) in enumerate(created)],
                )
            if rows:
                tx.executemany("INSERT INTO helikon_run_records (run_id, seq, kind, body) VALUES (?, ?, ?, ?)", rows)
            if changed:
                tx.executemany(
                    "UPDATE helikon_runs SET records = ?, last_kind = ?, status = ?, updated_at = ? WHERE run_id = ?",
                    [(count, kind, status, now, run_id) for run_id, (count, kind, status, now) in changed.items()],
                )
        return outcomes

    def _runs_of(self, tx: Tx, run_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """The record count and last kind of each run of `run_ids` that exists (rows locked for the transaction)."""
        found: dict[str, tuple[int, str]] = {}
        for start in range(0, len(run_ids), _IDS_PER_QUERY):
            chunk = run_ids[start : start + _IDS_PER_QUERY]
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT run_id, records, last_kind FROM helikon_runs WHERE run_id IN ({marks}) ORDER BY run_id"
            for run_id, count, last_kind in tx.all(query + self.lock, chunk):
                found[str(run_id)] = (int(count), str(last_kind))
        return found

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


def _insert_records(tx: Tx, run_id: str, records: Sequence[RunRecord]) -> None:
    if records:
        tx.executemany(
            "INSERT INTO helikon_run_records (run_id, seq, kind, body) VALUES (?, ?, ?, ?)",
            [(run_id, record.seq, record.kind, record.body) for record in records],
        )


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
