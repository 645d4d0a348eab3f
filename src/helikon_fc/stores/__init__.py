"""Stores: where sessions and run records outlive a run.

`MemoryStore` keeps them in memory; `SQLiteStore` in a SQLite file (the embedded default);
`PostgresStore` in PostgreSQL (``pip install helikon_fc[postgres]``). Each implements
`helikon_fc.shell.durable.storage.Store`; the interfaces and errors are re-exported here, and
`store_at(location)` picks a store from a path or a DSN. `CompactingSession` wraps any of their
sessions to summarise a long history.
"""

from __future__ import annotations

from .._public import claim as _claim
from ..shell.durable.compacting_session import CompactingSession as CompactingSession
from ..shell.durable.storage import (
    RunNotFound as RunNotFound,
    RunRecord as RunRecord,
    RunRecordConflict as RunRecordConflict,
    RunStatus as RunStatus,
    RunStore as RunStore,
    RunSummary as RunSummary,
    SchemaVersionError as SchemaVersionError,
    Session as Session,
    SessionSnapshot as SessionSnapshot,
    Store as Store,
    StoreError as StoreError,
)
from ._base import StoreBase as StoreBase, StoreSession as StoreSession
from .location import store_at as store_at
from .memory import MemoryStore as MemoryStore
from .postgres import PostgresStore as PostgresStore
from .sqlite import SQLiteStore as SQLiteStore

__all__ = [
    "CompactingSession",
    "MemoryStore",
    "PostgresStore",
    "RunNotFound",
    "RunRecord",
    "RunRecordConflict",
    "RunStatus",
    "RunStore",
    "RunSummary",
    "SQLiteStore",
    "SchemaVersionError",
    "Session",
    "SessionSnapshot",
    "Store",
    "StoreBase",
    "StoreError",
    "StoreSession",
    "store_at",
]

_claim(__name__, globals(), __all__)
