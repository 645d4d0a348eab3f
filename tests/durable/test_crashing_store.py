"""`KillingStore` counts what the crash trials count as a record write, and passes everything through."""

from __future__ import annotations

import pytest
import trio
from tests.durable.crashing_store import KillingStore

from helikon_fc.shell.durable.storage import RunRecord
from helikon_fc.stores import MemoryStore


def test_record_writes_are_counted_and_reach_the_inner_store() -> None:
    async def main() -> None:
        async with KillingStore(MemoryStore(), after=10) as store:
            await store.create_run("r", "agent")  # registered, nothing written
            assert store.writes == 0
            await store.append_run_records("r", (RunRecord(0, "run_opened", "{}"),), "running")
            await store.append_run_records("r", (), "paused")  # a status change: no record written
            assert store.writes == 1
            await store.create_run("s", "agent", (RunRecord(0, "run_opened", "{}"),))
            assert store.writes == 2
            assert [record.seq for record in await store.read_run_records("r")] == [0]
            assert (await store.run_summary("r")).status == "paused"
            assert sorted(summary.run_id for summary in await store.runs()) == ["r", "s"]

    trio.run(main)


@pytest.mark.parametrize("after", [0, -1, True, 1.0])
def test_after_must_name_a_write(after: object) -> None:
    with pytest.raises(ValueError, match=r"KillingStore\(after=\.\.\.\) must be an int >= 1"):
        KillingStore(MemoryStore(), after)  # type: ignore[arg-type]
