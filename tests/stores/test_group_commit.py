"""The group commit of the database stores: operations that arrive while a batch runs go together in
the next one, each still succeeding or failing on its own; and `GroupCommit`'s hand-over of the
next batch when a waiting caller is cancelled."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest
import trio
import trio.testing
from tests.stores.conftest import Backend
from tests.stores.test_sql_stores import POISON_TRIGGERS

from helikon_fc import UserMessage
from helikon_fc.stores import RunNotFound, RunRecord, RunRecordConflict, StoreBase, StoreError
from helikon_fc.stores._batch import GroupCommit, Pending
from helikon_fc.stores._sql import SqlOps


@pytest.fixture
def batch_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every batch the database stores run, in order."""
    sizes: list[int] = []
    original = SqlOps.run_batch

    def counting(self: SqlOps, batch: Sequence[Pending[Any]]) -> None:
        sizes.append(len(batch))
        original(self, batch)

    monkeypatch.setattr(SqlOps, "run_batch", counting)
    return sizes


async def _behind_a_batch(store: StoreBase, *jobs: Callable[[], Any]) -> None:
    """Start `jobs` while a batch is in flight (an operation blocked in its worker thread), so they all
    queue behind it; then let it end."""
    gate = threading.Event()
    await store.runs()  # open the store first
    async with trio.open_nursery() as nursery:
        nursery.start_soon(store._commits.submit, Pending(lambda _ops: gate.wait(10)))  # type: ignore[attr-defined]
        await trio.testing.wait_all_tasks_blocked()
        for job in jobs:
            nursery.start_soon(job)
        await trio.testing.wait_all_tasks_blocked()
        gate.set()


def _records(first: int, count: int, body: str = '"ok"') -> tuple[RunRecord, ...]:
    return tuple(RunRecord(seq, "step", body) for seq in range(first, first + count))


async def test_run_appends_of_many_runs_go_in_one_batch(sql_backend: Backend, batch_sizes: list[int]) -> None:
    """Appends to twelve runs, a creation and a conflicting append queued together run as one batch:
    the good ones land, the conflict fails alone."""
    async with sql_backend.new_store() as store:
        for i in range(12):
            await store.create_run(f"r{i}", "a")
        failures: list[Exception] = []

        def append(run: str, first: int) -> Callable[[], Any]:
            async def job() -> None:
                try:
                    await store.append_run_records(run, _records(first, 2), "running")
                except RunRecordConflict as exc:
                    failures.append(exc)

            return job

        jobs = [append(f"r{i}", 0) for i in range(12)]
        jobs.append(append("r0", 7))
        jobs.append(lambda: store.create_run("fresh", "b", _records(0, 3)))
        await _behind_a_batch(store, *jobs)
        assert batch_sizes[-1] == 14
        assert len(failures) == 1 and "next record is seq" in str(failures[0])
        for i in range(12):
            assert await store.read_run_records(f"r{i}") == _records(0, 2)
        assert await store.read_run_records("fresh") == _records(0, 3)


async def test_a_record_the_database_rejects_fails_only_its_own_append(
    sql_backend: Backend, batch_sizes: list[int]
) -> None:
    """A batch whose run appends are written together hits a record a trigger rejects: that append
    fails with `StoreError`, every other append and the session append of the batch land."""
    async with sql_backend.new_store() as store:
        for i in range(6):
            await store.create_run(f"r{i}", "a")
        sql_backend.execute_sql(POISON_TRIGGERS[sql_backend.name])
        outcomes: dict[str, object] = {}

        def append(run: str, body: str) -> Callable[[], Any]:
            async def job() -> None:
                try:
                    await store.append_run_records(run, _records(0, 2, body), "running")
                    outcomes[run] = "ok"
                except StoreError as exc:
                    outcomes[run] = exc

            return job

        async def session_append() -> None:
            outcomes["session"] = await store.session("alice").append([UserMessage("kept")])

        jobs = [append(f"r{i}", '"poison"' if i == 2 else '"ok"') for i in range(6)]
        await _behind_a_batch(store, *jobs, session_append)
        assert batch_sizes[-1] == 7
        assert isinstance(outcomes.pop("r2"), StoreError)
        assert outcomes == {**{f"r{i}": "ok" for i in range(6) if i != 2}, "session": 1}
        assert await store.read_run_records("r2") == ()
        assert (await store.run_summary("r2")).records == 0
        for i in (0, 1, 3, 4, 5):
            assert await store.read_run_records(f"r{i}") == _records(0, 2)


async def test_an_append_to_an_unknown_run_in_a_batch_is_run_not_found(
    sql_backend: Backend, batch_sizes: list[int]
) -> None:
    """In a batch, an append to a run nobody created fails with `RunNotFound`; the others land."""
    async with sql_backend.new_store() as store:
        await store.create_run("r1", "a")
        await store.create_run("r2", "a")
        missing: list[Exception] = []

        async def ghost() -> None:
            try:
                await store.append_run_records("ghost", _records(0, 1), "running")
            except RunNotFound as exc:
                missing.append(exc)

        await _behind_a_batch(
            store,
            lambda: store.append_run_records("r1", _records(0, 1), "completed"),
            ghost,
            lambda: store.append_run_records("r2", _records(0, 1), "failed"),
        )
        assert batch_sizes[-1] == 3
        assert len(missing) == 1
        assert [(await store.run_summary(r)).status for r in ("r1", "r2")] == ["completed", "failed"]


class _Batches:
    """A fake batch runner for `GroupCommit`: records each batch, and holds the first until `gate` is set."""

    def __init__(self) -> None:
        self.gate = trio.Event()
        self.batches: list[list[str]] = []
        self.after_first: Callable[[], None] = lambda: None

    async def run(self, batch: Sequence[Pending[Any]]) -> None:
        self.batches.append([pending.fn(None) for pending in batch if pending.fn is not None])
        if len(self.batches) == 1:
            await self.gate.wait()
            self.after_first()
        for pending in batch:
            pending.settle(None)


async def test_a_caller_cancelled_as_it_is_chosen_to_run_the_next_batch_hands_it_on() -> None:
    """The first queued caller is chosen to run the next batch just as it is cancelled: it leaves
    (its operation is not run) and the caller after it runs the batch."""
    batches = _Batches()
    commits = GroupCommit(batches.run)
    doomed = trio.CancelScope()
    results: list[str] = []

    async def submit(name: str, scope: trio.CancelScope | None = None) -> None:
        with scope or trio.CancelScope():
            await commits.submit(Pending(lambda _ops: name))
            results.append(name)

    batches.after_first = doomed.cancel  # cancelled in the same step that hands it the next batch
    async with trio.open_nursery() as nursery:
        nursery.start_soon(submit, "first")
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(submit, "doomed", doomed)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(submit, "next")
        await trio.testing.wait_all_tasks_blocked()
        batches.gate.set()
    assert batches.batches == [["first"], ["next"]]
    assert sorted(results) == ["first", "next"]
    assert doomed.cancelled_caught


async def test_a_caller_cancelled_while_its_batch_runs_waits_for_it_to_land() -> None:
    """A caller whose operation is in the batch in flight, when cancelled, waits until the batch has
    run (its operation included), then raises `Cancelled`; the store is idle after.

    Two callers start together and trio may run either first: the one that found the store idle
    leads (its operation is first in the batch), and the other is the one cancelled.
    """
    batches = _Batches()
    commits = GroupCommit(batches.run)
    scopes = {"a": trio.CancelScope(), "b": trio.CancelScope()}
    ended: list[str] = []

    async def caller(name: str) -> None:
        with scopes[name]:
            await commits.submit(Pending(lambda _ops: name))
        ended.append(f"{name} cancelled" if scopes[name].cancelled_caught else f"{name} returned")

    async with trio.open_nursery() as nursery:
        try:
            nursery.start_soon(caller, "a")
            nursery.start_soon(caller, "b")  # ready at the leader's schedule point: it joins the leader's batch
            await trio.testing.wait_all_tasks_blocked()
            assert len(batches.batches) == 1
            assert sorted(batches.batches[0]) == ["a", "b"]
            leader, waiter = batches.batches[0]
            scopes[waiter].cancel()
            await trio.testing.wait_all_tasks_blocked()
            assert ended == []  # still waiting for its batch
        finally:
            batches.gate.set()  # a failed check above must not leave the shielded batch waiting forever
    assert sorted(ended) == sorted([f"{leader} returned", f"{waiter} cancelled"])
    assert not commits._busy
