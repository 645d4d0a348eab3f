"""`SQLiteStore` groups the operations waiting for its connection into one transaction (group
commit); each still succeeds or fails on its own."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from helikon_fc import UserMessage
from helikon_fc.stores import RunRecord, RunRecordConflict, SQLiteStore, StoreError
from helikon_fc.stores._batch import Pending
from helikon_fc.stores.sqlite import _SQLiteOps


@pytest.fixture
def batch_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every batch the SQLite stores run, in order."""
    sizes: list[int] = []
    original = _SQLiteOps.run_batch

    def counting(self: _SQLiteOps, batch: Sequence[Pending[Any]]) -> None:
        sizes.append(len(batch))
        original(self, batch)

    monkeypatch.setattr(_SQLiteOps, "run_batch", counting)
    return sizes


async def _queued_behind_the_connection(store: SQLiteStore, *jobs: Any) -> None:
    """Start `jobs` while a batch is in flight (one read, held up at the connection), so they all
    queue behind it, then let them run."""
    async with trio.open_nursery() as nursery:
        async with store._limiter:
            nursery.start_soon(store.runs)
            await trio.testing.wait_all_tasks_blocked()
            for job in jobs:
                nursery.start_soon(job)
            await trio.testing.wait_all_tasks_blocked()


async def test_concurrent_appends_share_one_transaction(tmp_path: Path, batch_sizes: list[int]) -> None:
    """16 appends waiting for the connection run as one batch, and every one gets its own watermark."""
    async with SQLiteStore(tmp_path / "s.db") as store:
        session = store.session("alice")
        await session.append([UserMessage("first")])
        marks: list[int] = []

        async def append(i: int) -> None:
            marks.append(await session.append([UserMessage(f"m{i}")]))

        await _queued_behind_the_connection(store, *(lambda i=i: append(i) for i in range(16)))
        assert batch_sizes[-1] == 16
        assert sorted(marks) == list(range(2, 18))
        texts = [item.text for item in await session.items() if isinstance(item, UserMessage)]
        assert texts[0] == "first" and sorted(texts[1:]) == sorted(f"m{i}" for i in range(16))


async def test_a_failing_operation_in_a_batch_is_undone_alone(tmp_path: Path, batch_sizes: list[int]) -> None:
    """In one batch, an append that cannot be stored and a run append that conflicts fail with their
    own errors; the operations beside them land."""
    async with SQLiteStore(tmp_path / "s.db") as store:
        session = store.session("alice")
        await store.create_run("r1", "a")
        outcomes: dict[str, object] = {}

        async def good() -> None:
            outcomes["good"] = await session.append([UserMessage("good")])

        async def bad() -> None:
            try:
                await session.append([UserMessage("fine"), UserMessage("bad \ud800")])
            except StoreError as exc:
                outcomes["bad"] = exc

        async def conflicting() -> None:
            try:
                await store.append_run_records("r1", [RunRecord(5, "k", "{}")], "failed")
            except RunRecordConflict as exc:
                outcomes["conflict"] = exc

        async def also_good() -> None:
            outcomes["also_good"] = await session.append([UserMessage("also good")])

        await _queued_behind_the_connection(store, good, bad, conflicting, also_good)
        assert batch_sizes[-1] == 4
        assert sorted([outcomes["good"], outcomes["also_good"]]) == [1, 2]  # type: ignore[type-var]
        assert isinstance(outcomes["bad"], StoreError) and isinstance(outcomes["conflict"], RunRecordConflict)
        assert set(await session.items()) == {UserMessage("good"), UserMessage("also good")}
        assert (await store.run_summary("r1")).status == "running"


async def test_an_append_cancelled_while_queued_is_not_written(tmp_path: Path, batch_sizes: list[int]) -> None:
    """Cancelling an append still waiting for the connection takes it out of the queue: nothing lands."""
    async with SQLiteStore(tmp_path / "s.db") as store:
        session = store.session("alice")
        await session.append([UserMessage("first")])
        async with trio.open_nursery() as nursery:
            async with store._limiter:
                nursery.start_soon(store.runs)  # a batch in flight, held up at the connection
                await trio.testing.wait_all_tasks_blocked()
                with trio.CancelScope() as scope:
                    nursery.start_soon(session.append, [UserMessage("kept")])
                    cancelled = trio.CancelScope()

                    async def doomed() -> None:
                        with cancelled:
                            await session.append([UserMessage("cancelled")])

                    nursery.start_soon(doomed)
                    await trio.testing.wait_all_tasks_blocked()
                    cancelled.cancel()
                    await trio.testing.wait_all_tasks_blocked()
                assert not scope.cancelled_caught
        assert await session.items() == (UserMessage("first"), UserMessage("kept"))
        assert batch_sizes[-1] == 1
