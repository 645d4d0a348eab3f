"""`PostgresStore`: sessions and run records in PostgreSQL (psycopg 3; ``pip install helikon_fc[postgres]``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import trio

from ..shell.storage import StoreError
from ._base import StoreBase
from ._ops import StoreOps

T = TypeVar("T")


class PostgresStore(StoreBase):
    """A `Store` in a PostgreSQL database, shared by any number of processes.

    psycopg's async interface needs asyncio, so the store uses its thread-safe blocking one: a
    ``psycopg_pool.ConnectionPool`` of `pool_size` connections, called from trio worker threads, at
    most `pool_size` at a time (a ``trio.CapacityLimiter``). Each operation is one transaction; an
    append that reads then writes a row locks it (``FOR UPDATE``), so concurrent writers of one
    session or run are serialised by the database. The tables are created on first use (under an
    advisory lock); a database written by a newer helikon_fc is refused with `SchemaVersionError`.

    Args:
        dsn: a libpq connection string or URL, e.g. ``"postgresql://app@127.0.0.1:5432/app"``.
        pool_size: connections to keep at most (and calls in flight at once).
        timeout: seconds to wait for a connection (at open, and for a free one later).

    Raises:
        TypeError, ValueError: a bad argument (named in the message).
    """

    def __init__(self, dsn: str, *, pool_size: int = 4, timeout: float = 10.0) -> None:
        super().__init__()
        if not isinstance(dsn, str) or not dsn:
            raise ValueError(f"dsn must be a non-empty connection string, got {dsn!r}")
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise ValueError(f"pool_size must be an int >= 1, got {pool_size!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        self._dsn = dsn
        self._pool_size = pool_size
        self._timeout = float(timeout)
        self._limiter = trio.CapacityLimiter(pool_size)

    def _open_ops(self) -> StoreOps:
        try:
            from ._postgres_ops import PostgresOps
        except ImportError as exc:
            raise StoreError(
                f"PostgresStore needs psycopg 3 and psycopg_pool: pip install 'helikon_fc[postgres]' ({exc})"
            ) from exc
        return PostgresOps(self._dsn, f"PostgreSQL database {redact(self._dsn)!r}", self._pool_size, self._timeout)

    async def _run(self, fn: Callable[[], T]) -> T:
        return await trio.to_thread.run_sync(fn, limiter=self._limiter)

    def __repr__(self) -> str:
        return f"PostgresStore({redact(self._dsn)!r})"


def redact(dsn: str) -> str:
    """`dsn` without its password (``postgresql://u:secret@h/db`` -> ``postgresql://u@h/db``), for messages."""
    dsn = re.sub(r"(://[^:/@]*):[^@]*@", r"\1@", dsn)
    return re.sub(r"password\s*=\s*('(\\.|[^'])*'|\S+)", "password=***", dsn)
