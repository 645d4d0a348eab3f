"""The PostgreSQL side of `PostgresStore`: a psycopg connection pool and `SqlOps` over it (imports psycopg)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from ..shell.durable.storage import StoreError
from ._sql import Row, SqlOps, Tx

_SCHEMA_LOCK = 0x68656C696B6F6E  # "helikon": the advisory lock held while the tables are checked or made


class _PgTx:
    __slots__ = ("_cur",)

    def __init__(self, cur: psycopg.Cursor[Any]) -> None:
        self._cur = cur

    def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        self._cur.execute(_query(sql), params)
        return self._cur.rowcount

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        self._cur.executemany(_query(sql), rows)

    def one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        row: Row | None = self._cur.execute(_query(sql), params).fetchone()
        return row

    def all(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return self._cur.execute(_query(sql), params).fetchall()


def _query(sql: str) -> str:
    """`SqlOps`' ``?`` placeholders as psycopg's ``%s`` (the statements are the module's own constants)."""
    return sql.replace("?", "%s")


class PostgresOps(SqlOps):
    """A pool of up to `pool_size` connections; an operation (or a batch of them) takes one for one transaction."""

    lock = " FOR UPDATE"

    def __init__(self, dsn: str, where: str, pool_size: int, timeout: float) -> None:
        self.where = where
        self._batch: psycopg.Connection[Any] | None = None
        """The connection of the batch being run (one at a time: the store's group commit), if any."""
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=pool_size,
            timeout=timeout,
            check=ConnectionPool.check_connection,  # a connection the server dropped is replaced, not used
            open=False,
            name="helikon_fc",
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
        except PoolTimeout as exc:
            self._pool.close()
            raise StoreError(f"{self.where} cannot be reached (no connection within {timeout} s)") from exc
        try:
            self.prepare_schema()
        except BaseException:
            self._pool.close()
            raise

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Tx]:
        batch = self._batch
        try:
            if batch is not None:  # one operation of a batch: a savepoint inside the batch's transaction
                with batch.transaction(), batch.cursor() as cur:
                    yield _PgTx(cur)
                return
            with self._pool.connection() as conn, conn.cursor() as cur:  # commits at the end, or rolls back
                yield _PgTx(cur)
        except psycopg.Error as exc:
            raise StoreError(f"{self.where}: {exc}") from exc
        except PoolTimeout as exc:
            raise StoreError(f"{self.where}: no connection free or reachable: {exc}") from exc

    @contextmanager
    def batch_transaction(self) -> Iterator[None]:
        try:
            with self._pool.connection() as conn, conn.transaction():
                self._batch = conn
                try:
                    yield
                finally:
                    self._batch = None
        except psycopg.Error as exc:
            raise StoreError(f"{self.where}: {exc}") from exc
        except PoolTimeout as exc:
            raise StoreError(f"{self.where}: no connection free or reachable: {exc}") from exc

    def lock_schema(self, tx: Tx) -> None:
        tx.execute("SELECT pg_advisory_xact_lock(?)", (_SCHEMA_LOCK,))

    def table_exists(self, tx: Tx, table: str) -> bool:
        row = tx.one("SELECT to_regclass(?) IS NOT NULL", (table,))
        return row is not None and bool(row[0])

    def close(self) -> None:
        self._pool.close()
