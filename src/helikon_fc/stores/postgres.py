"""`PostgresStore`: sessions and run records in PostgreSQL (psycopg 3; ``pip install helikon_fc[postgres]``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TypeVar

import trio

from ..shell.durable.storage import StoreError
from ._base import GroupCommitStore
from ._batch import Pending
from ._ops import StoreOps
from ._sql import SqlOps

T = TypeVar("T")


class PostgresStore(GroupCommitStore):
    """A `Store` in a PostgreSQL database, shared by any number of processes.

    psycopg's async interface needs asyncio, so the store uses its thread-safe blocking one: a
    ``psycopg_pool.ConnectionPool`` of `pool_size` connections, called from trio worker threads.
    Operations go through a group commit: one that finds the store idle runs at once in its own
    transaction; those that arrive while a batch runs go together in the next one, one transaction
    with a savepoint each (each still succeeds or fails on its own, and all share one commit and
    one disk sync). An append that reads then writes a row locks it (``FOR UPDATE``), so writers in
    other processes are serialised by the database. The tables are created on first use (under an
    advisory lock); a database written by a newer helikon_fc is refused with `SchemaVersionError`.

    Args:
        dsn: a libpq connection string or URL, e.g. ``"postgresql://app@127.0.0.1:5432/app"``.
        pool_size: connections to keep at most (and calls in flight at once).
        timeout: seconds to wait for a connection (at open, and for a free one later).

    Raises:
        TypeError, ValueError: a bad argument (named in the message).
    """

    def __init__(self, dsn: str, *, pool_size: int = 4, timeout: float = 10.0) -> None:
        if not isinstance(dsn, str) or not dsn:
            raise ValueError(f"dsn must be a non-empty connection string, got {dsn!r}")
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise ValueError(f"pool_size must be an int >= 1, got {pool_size!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        super().__init__(trio.CapacityLimiter(pool_size))
        self._dsn = dsn
        self._pool_size = pool_size
        self._timeout = float(timeout)

    def _open_ops(self) -> StoreOps:
        try:
            from ._postgres_ops import PostgresOps
        except ImportError as exc:
            raise StoreError(
                f"PostgresStore needs psycopg 3 and psycopg_pool: pip install 'helikon_fc[postgres]' ({exc})"
            ) from exc
        return PostgresOps(self._dsn, f"PostgreSQL database {redact(self._dsn)!r}", self._pool_size, self._timeout)

    async def _batch_in_thread(self, ops: SqlOps, batch: Sequence[Pending[Any]]) -> None:
        await trio.to_thread.run_sync(ops.run_batch, batch, limiter=self._limiter)

    def __repr__(self) -> str:
        return f"PostgresStore({redact(self._dsn)!r})"


def redact(dsn: str) -> str:
    """`dsn` without its password (``postgresql://u:secret@h/db`` -> ``postgresql://u@h/db``), for messages."""
    dsn = re.sub(r"(://[^:/@]*):[^@]*@", r"\1@", dsn)
    return re.sub(r"password\s*=\s*('(\\.|[^'])*'|\S+)", "password=***", dsn)
