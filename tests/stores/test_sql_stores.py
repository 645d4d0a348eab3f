"""What only a database store promises: schema versions, rollback of a failure inside the
database, cancelled writes, lost connections, unreachable servers, and several processes on one
database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import trio
from tests.stores.conftest import Backend

import helikon_fc
from helikon_fc import UserMessage
from helikon_fc.stores import (
    PostgresStore,
    RunRecord,
    SchemaVersionError,
    SQLiteStore,
    StoreError,
    store_at,
)

POISON_TRIGGERS = {
    "sqlite": """
        CREATE TRIGGER poison_items BEFORE INSERT ON helikon_session_items WHEN NEW.item LIKE '%poison%'
        BEGIN SELECT RAISE(ABORT, 'poisoned item'); END;
        CREATE TRIGGER poison_records BEFORE INSERT ON helikon_run_records WHEN NEW.body LIKE '%poison%'
        BEGIN SELECT RAISE(ABORT, 'poisoned record'); END;
    """,
    "postgres": """
        CREATE FUNCTION poison_item() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.item LIKE '%poison%' THEN RAISE EXCEPTION 'poisoned item'; END IF;
            RETURN NEW;
        END $$;
        CREATE FUNCTION poison_record() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.body LIKE '%poison%' THEN RAISE EXCEPTION 'poisoned record'; END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER poison_items BEFORE INSERT ON helikon_session_items
            FOR EACH ROW EXECUTE FUNCTION poison_item();
        CREATE TRIGGER poison_records BEFORE INSERT ON helikon_run_records
            FOR EACH ROW EXECUTE FUNCTION poison_record();
    """,
}


async def test_a_database_of_a_newer_schema_is_refused_and_left_alone(sql_backend: Backend) -> None:
    """A store whose version table says a newer version raises `SchemaVersionError` on first use,
    naming both versions, and changes nothing; with the version put back, the data is all there."""
    async with sql_backend.new_store() as store:
        await store.session("alice").append([UserMessage("kept")])
    sql_backend.execute_sql("UPDATE helikon_schema SET version = 2")
    refused = sql_backend.new_store()
    with pytest.raises(SchemaVersionError, match="schema version 2, newer than the 1 this helikon_fc knows"):
        await refused.session("alice").items()
    with pytest.raises(SchemaVersionError):
        async with sql_backend.new_store():
            pass  # pragma: no cover
    await refused.aclose()
    sql_backend.execute_sql("UPDATE helikon_schema SET version = 1")
    async with sql_backend.new_store() as store:
        assert await store.session("alice").items() == (UserMessage("kept"),)


async def test_a_failure_inside_the_database_rolls_the_whole_batch_back(sql_backend: Backend) -> None:
    """A row the database itself rejects in the middle of a batch (a trigger raising) fails the
    append with `StoreError`; the rows before it are rolled back, the watermark does not move, and
    the session and the run take the next write."""
    async with sql_backend.new_store() as store:
        session = store.session("alice")
        await session.append([UserMessage("before")])
        await store.create_run("r1", "a")
        sql_backend.execute_sql(POISON_TRIGGERS[sql_backend.name])
        with pytest.raises(StoreError, match="poisoned item"):
            await session.append([UserMessage("fine"), UserMessage("poison"), UserMessage("fine too")])
        assert await session.append([UserMessage("after")]) == 2
        assert await session.items() == (UserMessage("before"), UserMessage("after"))
        bad = (RunRecord(0, "k", '"ok"'), RunRecord(1, "k", '"poison"'))
        with pytest.raises(StoreError, match="poisoned record"):
            await store.append_run_records("r1", bad, "completed")
        summary = await store.run_summary("r1")
        assert (summary.records, summary.status) == (0, "running")
        await store.append_run_records("r1", (RunRecord(0, "k", '"ok"'),), "completed")
        assert await store.read_run_records("r1") == (RunRecord(0, "k", '"ok"'),)


async def test_a_cancelled_append_lands_whole_or_not_at_all(sql_backend: Backend) -> None:
    """Cancelling the task while its append is in progress never leaves part of the batch."""
    batch = [UserMessage(f"m{i}") for i in range(2000)]
    async with sql_backend.new_store() as store:
        session = store.session("alice")
        await session.append([UserMessage("open")])
        with trio.move_on_after(0.005):
            await session.append(batch)
        assert len(await session.items()) in (1, 2001)
        assert await session.append([UserMessage("next")]) in (2, 2002)


async def test_the_schema_is_made_once_and_versioned(sql_backend: Backend) -> None:
    """Opening a store on an empty database makes the tables and records version 1; reopening keeps them."""
    for _ in range(2):
        async with sql_backend.new_store() as store:
            await store.runs()
    sql_backend.execute_sql(
        "INSERT INTO helikon_runs SELECT 'x', version, 'running', 0, '', 0, 0, 0 FROM helikon_schema"
    )
    async with sql_backend.new_store() as store:
        assert [run.agent for run in await store.runs()] == ["1"]


async def test_postgres_replaces_a_connection_the_server_dropped(postgres_dsn: str) -> None:
    """After the server ends every connection of the store, the next call still works (the pool
    checks a connection before handing it out)."""
    async with PostgresStore(postgres_dsn, pool_size=2) as store:
        await store.session("alice").append([UserMessage("one")])
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = '' AND pid <> pg_backend_pid() AND datname = current_database()"
            )
        assert await store.session("alice").append([UserMessage("two")]) == 2


async def test_an_unreachable_postgres_is_a_store_error_without_the_password() -> None:
    """A server nobody listens on fails the first call with `StoreError` naming the database, not its password."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    store = PostgresStore(f"postgresql://app:s3cret@127.0.0.1:{port}/app", timeout=0.5)
    assert "s3cret" not in repr(store)
    with pytest.raises(StoreError, match=f"127.0.0.1:{port}/app' cannot be reached") as caught:
        await store.runs()
    assert "s3cret" not in str(caught.value)
    await store.aclose()


async def test_a_sqlite_file_in_a_missing_folder_is_a_store_error(tmp_path: Path) -> None:
    """A path whose folder does not exist fails the first call with `StoreError` naming the path."""
    store = SQLiteStore(tmp_path / "missing" / "store.db")
    with pytest.raises(StoreError, match=r"missing/store.db' cannot be opened"):
        await store.runs()
    await store.aclose()


def test_bad_constructor_arguments_are_refused_by_name() -> None:
    """Each store refuses a bad argument when it is built, naming it."""
    with pytest.raises(ValueError, match="path must name a file"):
        SQLiteStore("")
    with pytest.raises(ValueError, match="busy_timeout must be a number of seconds >= 0, got -1"):
        SQLiteStore("x.db", busy_timeout=-1)
    with pytest.raises(ValueError, match="synchronous must be 'full' or 'normal', got 'off'"):
        SQLiteStore("x.db", synchronous="off")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pool_size must be an int >= 1, got 0"):
        PostgresStore("postgresql://h/db", pool_size=0)
    with pytest.raises(ValueError, match="dsn must be a non-empty connection string"):
        PostgresStore("")
    with pytest.raises(ValueError, match="location must be a SQLite file path or a postgresql:// DSN"):
        store_at("")
    assert isinstance(store_at("postgresql://h/db"), PostgresStore)
    assert isinstance(store_at("postgres://h/db"), PostgresStore)
    assert isinstance(store_at("runs.db"), SQLiteStore)


WRITER = """
import sys, trio
from helikon_fc import UserMessage
from helikon_fc.stores import RunRecord, store_at

async def main(location: str, name: str) -> None:
    async with store_at(location) as store:
        session = store.session("shared")
        await store.create_run(name, name)
        for i in range(100):
            await session.append([UserMessage(f"{name}-{i}")])
            await store.append_run_records(name, [RunRecord(i, "step", "{}")], "running")
        await store.append_run_records(name, [], "completed")

trio.run(main, sys.argv[1], sys.argv[2])
"""


def test_two_processes_append_to_one_database(sql_backend: Backend) -> None:
    """Two processes appending to one session (and each to its own run) on one database: every item
    lands exactly once, each process's order kept, and both runs complete."""
    env = {**os.environ, "PYTHONPATH": str(Path(helikon_fc.__file__).parents[1])}
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, sql_backend.location, name], env=env, stderr=subprocess.PIPE)
        for name in ("p1", "p2")
    ]
    for writer in writers:
        _, stderr = writer.communicate(timeout=120)
        assert writer.returncode == 0, stderr.decode()

    async def check() -> None:
        async with sql_backend.new_store() as store:
            texts = [item.text for item in await store.session("shared").items() if isinstance(item, UserMessage)]
            runs = {run.run_id: (run.status, run.records) for run in await store.runs()}
        assert sorted(texts) == sorted(f"{p}-{i}" for p in ("p1", "p2") for i in range(100))
        for p in ("p1", "p2"):
            assert [t for t in texts if t.startswith(f"{p}-")] == [f"{p}-{i}" for i in range(100)]
        assert runs == {"p1": ("completed", 100), "p2": ("completed", 100)}

    trio.run(check)
