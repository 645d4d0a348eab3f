"""Fixtures for the store conformance suite: one `backend` per kind of store, each test on a fresh database."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import attrs
import psycopg
import pytest
from tests.stores.postgres_server import PostgresServer, PostgresUnavailable, running_postgres

from helikon_fc.stores import MemoryStore, PostgresStore, SQLiteStore, StoreBase

BACKENDS = ("memory", "sqlite", "postgres")


@attrs.frozen
class Backend:
    """A kind of store, set up on a database of its own for one test."""

    name: str
    new_store: Callable[[], StoreBase]
    """A new, unopened store on this test's database (each call a new store object)."""
    persistent: bool
    """Whether a second store on the database sees what the first wrote (false for memory)."""
    location: str = ""
    """The SQLite file or the PostgreSQL DSN ('' for memory)."""

    def execute_sql(self, script: str) -> None:
        """Run `script` on the database over a connection of its own, behind the store's back."""
        if self.name == "sqlite":
            conn = sqlite3.connect(self.location)
            try:
                conn.executescript(script)
            finally:
                conn.close()
        elif self.name == "postgres":
            with psycopg.connect(self.location, autocommit=True) as pg:
                pg.execute(script.encode())
        else:
            raise AssertionError(f"{self.name} has no SQL")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each backend in turn, on a fresh database."""
    return make_backend(request, request.param)


@pytest.fixture(params=("sqlite", "postgres"))
def sql_backend(request: pytest.FixtureRequest) -> Backend:
    """Each database backend in turn, on a fresh database."""
    return make_backend(request, request.param)


def make_backend(request: pytest.FixtureRequest, name: str) -> Backend:
    """Backend `name` on a fresh database."""
    if name == "memory":
        return Backend(name, MemoryStore, persistent=False)
    if name == "sqlite":
        path = str(request.getfixturevalue("tmp_path") / "store.db")
        return Backend(name, lambda: SQLiteStore(path), persistent=True, location=path)
    if name == "postgres":
        dsn = fresh_database(request.getfixturevalue("postgres_server"))
        return Backend(name, lambda: PostgresStore(dsn), persistent=True, location=dsn)
    raise AssertionError(f"unknown backend {name}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of the test session's own (never skipped: no binaries is a failure)."""
    try:
        with running_postgres() as server:
            yield server
    except PostgresUnavailable as exc:
        pytest.fail(f"the PostgreSQL tests need a server: {exc}", pytrace=False)


@pytest.fixture
def postgres_dsn(postgres_server: PostgresServer) -> str:
    """A fresh, empty database on the test session's PostgreSQL server."""
    return fresh_database(postgres_server)


def fresh_database(server: PostgresServer) -> str:
    """The DSN of a new, empty schema on `server` (as good as a new database for a store, and a
    hundred times faster to make)."""
    name = f"test_{uuid.uuid4().hex}"  # unique even if this module is imported twice (by pytest, and by name)
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}".encode())
    return f"{server.dsn()}?options=-csearch_path%3D{name}"


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[StoreBase]:
    """An open store of the backend, closed at the end of the test."""
    async with backend.new_store() as opened:
        yield opened
