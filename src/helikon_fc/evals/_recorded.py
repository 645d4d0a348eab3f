"""`copy_runs`: the runs an eval recorded in memory, copied into the store the user named."""

from __future__ import annotations

from ..shell.durable.storage import RunStore


async def copy_runs(source: RunStore, target: RunStore) -> None:
    """Copy every run of `source` (sub-runs included) into `target`, oldest first, with its records and status.

    An eval records into a `MemoryStore` while it runs (a store's worker threads would look idle to a virtual
    clock, which would then jump to the runs' deadlines) and copies the runs once they have all finished.
    """
    summaries = sorted(await source.runs(), key=lambda summary: (summary.created_at, summary.run_id))
    for summary in summaries:
        records = await source.read_run_records(summary.run_id)
        await target.create_run(summary.run_id, summary.agent)
        await target.append_run_records(summary.run_id, records, summary.status)
