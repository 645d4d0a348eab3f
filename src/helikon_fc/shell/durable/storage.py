"""What the shell asks of a store: sessions (conversation histories) and run records (the durable log).

The shell owns these interfaces; `helikon_fc.stores` implements them (`MemoryStore`, `SQLiteStore`,
`PostgresStore`). A store never interprets what it keeps: session items cross as `Item` values and
run records as opaque JSON documents (`RunRecord.body`), so the record format can change without
touching a backend, and every backend keeps the same promises:

- **Order.** Session items and run records come back in the order they were appended.
- **Atomicity.** One `append` / `append_run_records` call lands whole or not at all; a failed call
  leaves the session or run usable, as it was.
- **Watermarks are exclusive.** ``items(since=w)`` gives the items appended after watermark ``w``
  (a value an earlier `append` or `snapshot` returned); ``since=None`` gives them all.
- **Run records are contiguous.** Records of one run are numbered 0, 1, 2, ... by `seq`; an append
  whose first `seq` is not the run's next number is refused with `RunRecordConflict` (two writers
  on one run), and nothing of it is written.
- **Acknowledged means durable.** A call that returns has written what it was given; a database
  store may commit calls that arrive together in one transaction (group commit), but each call
  still succeeds or fails on its own, and one that fails leaves the others of its transaction written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal, Protocol, TypeAlias

import attrs

from ...core import Item
from .. import _checks

RunStatus: TypeAlias = Literal["running", "completed", "failed", "paused"]
"""Where a recorded run stands: still going (or crashed), ended well, ended in failure, waiting for approval."""

RUN_STATUSES: tuple[RunStatus, ...] = ("running", "completed", "failed", "paused")


class StoreError(Exception):
    """A store could not do what was asked (the database is unreachable, a write failed, ...)."""


class SchemaVersionError(StoreError):
    """The database was written by a newer helikon_fc (its schema version is unknown here); nothing is read."""


class RunNotFound(StoreError, LookupError):
    """No run is recorded under this id."""


class RunRecordConflict(StoreError):
    """An append to a run did not continue its records (another writer got there first); nothing was written."""


@attrs.frozen
class SessionSnapshot:
    """A session's items at one moment, and the watermark to read on from."""

    items: tuple[Item, ...]
    watermark: int
    """Pass to ``items(since=...)`` to get only what was appended after this snapshot (0 when empty)."""


class Session(Protocol):
    """A conversation history that outlives a run: `Runner` prepends it to a run's input and
    appends the run's new items when the run ends."""

    @property
    def session_id(self) -> str:
        """The id this session is kept under."""
        ...

    async def append(self, items: Sequence[Item]) -> int:
        """Add `items` at the end, all or none; return the watermark after them."""
        ...

    async def items(self, since: int | None = None) -> tuple[Item, ...]:
        """The items appended after watermark `since` (all of them when ``None``), oldest first."""
        ...

    async def snapshot(self) -> SessionSnapshot:
        """Every item and the current watermark, read at one moment."""
        ...


@attrs.frozen
class RunRecord:
    """One entry of a run's durable log."""

    seq: int
    """0-based position in the run's log; contiguous."""
    kind: str
    """A short tag naming what `body` holds (the record format's business, not the store's)."""
    body: str
    """A JSON document."""


@attrs.frozen
class RunSummary:
    """A recorded run as `store.runs()` lists it."""

    run_id: str
    agent: str
    status: RunStatus
    records: int
    """How many records the run's log holds."""
    last_kind: str
    """The `kind` of its newest record ('' when it has none)."""
    created_at: float
    """Seconds since the epoch, by the store's clock."""
    updated_at: float


class RunStore(Protocol):
    """Where `Runner(config, store=...)` writes and reads run records."""

    async def create_run(self, run_id: str, agent: str, records: Sequence[RunRecord] = ()) -> None:
        """Register a new run with status ``running`` and `records` (numbered from 0) as its first records,
        in one transaction.

        Raises:
            RunRecordConflict: a run with this id exists already (nothing is written).
        """
        ...

    async def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus) -> None:
        """Append `records` (whose seqs continue the run's log) and set the run's status, in one transaction.

        Raises:
            RunNotFound: no such run.
            RunRecordConflict: the first seq is not the run's next; nothing is written.
        """
        ...

    async def read_run_records(self, run_id: str, since: int = -1) -> tuple[RunRecord, ...]:
        """The run's records with ``seq > since``, in order.

        Raises:
            RunNotFound: no such run.
        """
        ...

    async def run_summary(self, run_id: str) -> RunSummary:
        """One run's summary.

        Raises:
            RunNotFound: no such run.
        """
        ...

    async def runs(self) -> tuple[RunSummary, ...]:
        """Every recorded run, newest first."""
        ...


_RUN_STORE_METHODS = ("create_run", "append_run_records", "read_run_records", "run_summary", "runs")


def require_run_store(owner: str, argument: str, value: object) -> None:
    """Raise `TypeError` unless `value` is a `RunStore` (an object with its five methods, not a class);
    a path gets a hint to open a store on it."""
    if not isinstance(value, type) and all(callable(getattr(value, name, None)) for name in _RUN_STORE_METHODS):
        return
    if isinstance(value, str | os.PathLike):
        hint = f"open a store on it: SQLiteStore({value!r}), or store_at(location) for a path or a DSN"
    elif isinstance(value, type):
        hint = f"pass a store object, e.g. {value.__name__}(...), not the class"
    else:
        hint = ""
    allowed = "a RunStore (MemoryStore(), SQLiteStore(path), PostgresStore(dsn), or an object with " + (
        ", ".join(_RUN_STORE_METHODS) + ")"
    )
    raise TypeError(_checks.message(owner, argument, value, allowed, hint))


class Store(RunStore, Protocol):
    """A database holding sessions and run records."""

    def session(self, session_id: str) -> Session:
        """The session kept under `session_id` (empty until something is appended)."""
        ...

    async def aclose(self) -> None:
        """Release the store's connections."""
        ...
