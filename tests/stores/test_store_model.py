"""Every store against a reference model: random programs of session and run-record operations
(including appends that fail and appends that conflict) give the same results, and the same errors,
as a few lines of Python lists."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from hypothesis import HealthCheck, given, settings, strategies as st
from tests.stores.conftest import fresh_database
from tests.stores.postgres_server import PostgresServer

from helikon_fc import UserMessage
from helikon_fc.stores import (
    MemoryStore,
    PostgresStore,
    RunNotFound,
    RunRecord,
    RunRecordConflict,
    SessionSnapshot,
    SQLiteStore,
    StoreBase,
    StoreError,
)

SESSIONS = ("a", "b")
RUNS = ("r1", "r2")
BAD = UserMessage("bad \ud800")


@attrs.frozen
class Append:
    session: str
    texts: tuple[str, ...]
    bad_at: int | None  # where an unstorable item goes into the batch, if anywhere


@attrs.frozen
class Items:
    session: str
    since: int | None


@attrs.frozen
class Snapshot:
    session: str


@attrs.frozen
class Create:
    run: str


@attrs.frozen
class Records:
    run: str
    offset: int  # the first seq, relative to the run's next one (0 continues it; others conflict)
    count: int
    status: str


@attrs.frozen
class Read:
    run: str
    since: int


Op = Append | Items | Snapshot | Create | Records | Read

texts = st.text(alphabet="abcxyz é✓", max_size=6)
operations: st.SearchStrategy[Op] = st.one_of(
    st.builds(
        Append,
        st.sampled_from(SESSIONS),
        st.lists(texts, max_size=3).map(tuple),
        st.one_of(st.none(), st.integers(0, 3)),
    ),
    st.builds(Items, st.sampled_from(SESSIONS), st.one_of(st.none(), st.integers(0, 8))),
    st.builds(Snapshot, st.sampled_from(SESSIONS)),
    st.builds(Create, st.sampled_from(RUNS)),
    st.builds(
        Records,
        st.sampled_from(RUNS),
        st.sampled_from((0, 0, 0, -1, 1)),
        st.integers(0, 2),
        st.sampled_from(("running", "completed", "paused")),
    ),
    st.builds(Read, st.sampled_from(RUNS), st.integers(-1, 4)),
)
programs = st.lists(operations, min_size=1, max_size=25)


@attrs.define
class Reference:
    sessions: dict[str, list[UserMessage]] = attrs.field(factory=dict)
    runs: dict[str, tuple[str, list[RunRecord]]] = attrs.field(factory=dict)

    def apply(self, op: Op) -> object:
        match op:
            case Append(session, texts, bad_at):
                if bad_at is not None:
                    return StoreError
                kept = self.sessions.setdefault(session, [])
                kept.extend(UserMessage(text) for text in texts)
                return len(kept)
            case Items(session, since):
                return tuple(self.sessions.get(session, [])[since or 0 :])
            case Snapshot(session):
                kept = self.sessions.get(session, [])
                return SessionSnapshot(tuple(kept), len(kept))
            case Create(run):
                if run in self.runs:
                    return RunRecordConflict
                self.runs[run] = ("running", [])
                return None
            case Records(run, offset, count, status):
                records = self.runs[run][1] if run in self.runs else []
                if count and len(records) + offset < 0:
                    return ValueError  # a negative seq is refused before the store is asked
                if run not in self.runs:
                    return RunNotFound
                if count and offset != 0:
                    return RunRecordConflict
                records.extend(_records(len(records) + offset, count))
                self.runs[run] = (status, records)
                return (status, len(records))
            case Read(run, since):
                if run not in self.runs:
                    return RunNotFound
                return tuple(self.runs[run][1][since + 1 :])


def _records(first: int, count: int) -> list[RunRecord]:
    return [RunRecord(seq, "k", f'{{"seq": {seq}}}') for seq in range(first, first + count)]


async def _apply(store: StoreBase, op: Op, counts: dict[str, int]) -> object:
    try:
        match op:
            case Append(session, texts, bad_at):
                batch = [UserMessage(text) for text in texts]
                if bad_at is not None:
                    batch.insert(min(bad_at, len(batch)), BAD)
                return await store.session(session).append(batch)
            case Items(session, since):
                return await store.session(session).items(since=since)
            case Snapshot(session):
                return await store.session(session).snapshot()
            case Create(run):
                await store.create_run(run, "agent")
                return None
            case Records(run, offset, count, status):
                first = counts.get(run, 0) + offset
                await store.append_run_records(run, _records(first, count), status)  # type: ignore[arg-type]
                summary = await store.run_summary(run)
                counts[run] = summary.records
                return (summary.status, summary.records)
            case Read(run, since):
                return await store.read_run_records(run, since=since)
    except (StoreError, ValueError) as exc:
        return type(exc)


async def _check(store: StoreBase, program: list[Op]) -> None:
    reference = Reference()
    counts: dict[str, int] = {}
    async with store:
        for step, op in enumerate(program):
            expected, got = reference.apply(op), await _apply(store, op, counts)
            assert got == expected, f"step {step}: {op}"


MODEL_SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@pytest.mark.parametrize("name", ["memory", "sqlite", "postgres"])
@MODEL_SETTINGS
@given(program=programs)
def test_every_store_behaves_as_the_reference_model(
    name: str, postgres_server: PostgresServer, program: list[Op]
) -> None:
    """Each operation of a random program returns what the reference model returns, or fails as it does."""
    store: Any
    if name == "memory":
        store = MemoryStore()
    elif name == "sqlite":
        store = SQLiteStore(Path(tempfile.mkdtemp(prefix="helikon-model-")) / "s.db")
    else:
        store = PostgresStore(fresh_database(postgres_server), pool_size=1)
    trio.run(_check, store, program)
