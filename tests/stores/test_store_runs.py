"""Run records, on every backend: create, append, read since, summaries, listing, contiguity."""

from __future__ import annotations

import pytest
import trio

from helikon_fc.stores import RunNotFound, RunRecord, RunRecordConflict, StoreBase


def records(first: int, count: int, kind: str = "boundary") -> tuple[RunRecord, ...]:
    """`count` records numbered from `first`, each body naming its seq."""
    return tuple(RunRecord(seq, kind, f'{{"seq": {seq}}}') for seq in range(first, first + count))


async def test_a_new_run_is_running_with_no_records(store: StoreBase) -> None:
    """`create_run` registers the run as running, empty, under the agent's name."""
    await store.create_run("r1", "triage")
    summary = await store.run_summary("r1")
    assert (summary.run_id, summary.agent, summary.status, summary.records, summary.last_kind) == (
        "r1",
        "triage",
        "running",
        0,
        "",
    )
    assert summary.created_at == summary.updated_at > 0
    assert await store.read_run_records("r1") == ()


async def test_records_come_back_in_order_and_since_is_exclusive(store: StoreBase) -> None:
    """Appended records read back whole and in order; `since=s` gives those with seq > s."""
    await store.create_run("r1", "triage")
    await store.append_run_records("r1", records(0, 3), "running")
    await store.append_run_records("r1", records(3, 2, kind="terminal"), "completed")
    assert await store.read_run_records("r1") == records(0, 3) + records(3, 2, kind="terminal")
    assert await store.read_run_records("r1", since=2) == records(3, 2, kind="terminal")
    assert await store.read_run_records("r1", since=4) == ()
    summary = await store.run_summary("r1")
    assert (summary.status, summary.records, summary.last_kind) == ("completed", 5, "terminal")
    assert summary.updated_at >= summary.created_at


async def test_an_append_that_does_not_continue_the_log_is_refused_whole(store: StoreBase) -> None:
    """A first seq other than the run's next (a gap, or a seq already taken) raises `RunRecordConflict`
    and writes nothing, not even the status."""
    await store.create_run("r1", "triage")
    await store.append_run_records("r1", records(0, 2), "running")
    for first in (1, 3, 0):
        with pytest.raises(RunRecordConflict, match="next record is seq 2"):
            await store.append_run_records("r1", records(first, 2), "failed")
    assert await store.read_run_records("r1") == records(0, 2)
    assert (await store.run_summary("r1")).status == "running"


async def test_two_writers_on_one_run_one_wins(store: StoreBase) -> None:
    """Two concurrent appends of the same next seq: exactly one lands, the other is a conflict."""
    await store.create_run("r1", "triage")
    outcomes: list[str] = []

    async def write(kind: str) -> None:
        try:
            await store.append_run_records("r1", records(0, 3, kind=kind), "running")
            outcomes.append(kind)
        except RunRecordConflict:
            outcomes.append("conflict")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(write, "a")
        nursery.start_soon(write, "b")
    winners = [outcome for outcome in outcomes if outcome != "conflict"]
    assert len(winners) == 1 and outcomes.count("conflict") == 1
    assert await store.read_run_records("r1") == records(0, 3, kind=winners[0])


async def test_an_empty_append_only_sets_the_status(store: StoreBase) -> None:
    """Appending no records changes the status and nothing else."""
    await store.create_run("r1", "triage")
    await store.append_run_records("r1", records(0, 1), "running")
    await store.append_run_records("r1", (), "paused")
    summary = await store.run_summary("r1")
    assert (summary.status, summary.records, summary.last_kind) == ("paused", 1, "boundary")


async def test_a_run_id_is_created_once(store: StoreBase) -> None:
    """Creating a run under a taken id raises `RunRecordConflict` and leaves the first run as it was."""
    await store.create_run("r1", "triage")
    await store.append_run_records("r1", records(0, 1), "completed")
    with pytest.raises(RunRecordConflict, match="'r1' exists already"):
        await store.create_run("r1", "other")
    summary = await store.run_summary("r1")
    assert (summary.agent, summary.status, summary.records) == ("triage", "completed", 1)


async def test_an_unknown_run_is_run_not_found_everywhere(store: StoreBase) -> None:
    """Reading, summarising or appending to an id never created raises `RunNotFound` naming it."""
    with pytest.raises(RunNotFound, match="'ghost'"):
        await store.read_run_records("ghost")
    with pytest.raises(RunNotFound, match="'ghost'"):
        await store.run_summary("ghost")
    with pytest.raises(RunNotFound, match="'ghost'"):
        await store.append_run_records("ghost", records(0, 1), "running")
    assert await store.runs() == ()


async def test_runs_are_listed_newest_first(store: StoreBase) -> None:
    """`runs()` lists every run, the most recently created first, each with its own summary."""
    for run_id in ("r1", "r2", "r3"):
        await store.create_run(run_id, f"agent-{run_id}")
    await store.append_run_records("r2", records(0, 2, kind="model_call"), "failed")
    listed = await store.runs()
    assert [summary.run_id for summary in listed] == ["r3", "r2", "r1"]
    assert listed[1] == await store.run_summary("r2")
    assert (listed[1].agent, listed[1].status, listed[1].records, listed[1].last_kind) == (
        "agent-r2",
        "failed",
        2,
        "model_call",
    )


async def test_bad_record_arguments_are_refused_before_anything_is_written(store: StoreBase) -> None:
    """A batch with a gap inside, an unknown status or a negative since is refused by name."""
    await store.create_run("r1", "triage")
    with pytest.raises(ValueError, match=r"records\[1\].seq is 5, expected 1"):
        await store.append_run_records("r1", (RunRecord(0, "k", "{}"), RunRecord(5, "k", "{}")), "running")
    with pytest.raises(
        ValueError, match="status must be one of 'running', 'completed', 'failed', 'paused', got 'done'"
    ):
        await store.append_run_records("r1", records(0, 1), "done")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"since must be a seq \(an int >= -1\), got -2"):
        await store.read_run_records("r1", since=-2)
    with pytest.raises(TypeError, match=r"records\[0\].body must be a str, got dict"):
        await store.append_run_records("r1", [RunRecord(0, "k", {})], "running")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"records\[0\].seq must be an int >= 0, got -1"):
        await store.append_run_records("r1", [RunRecord(-1, "k", "{}")], "running")
    with pytest.raises(ValueError, match="run_id must be a non-empty str"):
        await store.create_run("", "triage")
    assert (await store.run_summary("r1")).records == 0


async def test_a_run_created_with_its_first_records_has_them_at_once(store: StoreBase) -> None:
    """`create_run(..., records)` registers the run with those records; records not numbered from 0,
    or an id already taken, raise `RunRecordConflict` and write nothing."""
    await store.create_run("r1", "triage", records(0, 2))
    summary = await store.run_summary("r1")
    assert (summary.status, summary.records, summary.last_kind) == ("running", 2, "boundary")
    assert await store.read_run_records("r1") == records(0, 2)
    with pytest.raises(RunRecordConflict, match="next record is seq 0, got 1"):
        await store.create_run("r2", "triage", records(1, 2))
    with pytest.raises(RunNotFound):
        await store.run_summary("r2")
    with pytest.raises(RunRecordConflict, match="exists already"):
        await store.create_run("r1", "other", records(0, 1, kind="x"))
    assert await store.read_run_records("r1") == records(0, 2)
    assert (await store.run_summary("r1")).agent == "triage"


async def test_concurrent_writes_to_many_runs_each_succeed_or_fail_alone(store: StoreBase) -> None:
    """Twenty appends, creations and refusals at once (a database store commits them together): each
    gets its own outcome, and exactly the ones that succeeded are stored."""
    for i in range(10):
        await store.create_run(f"r{i}", "a", records(0, 1))
    await store.create_run("taken", "a")
    failures: dict[str, type[Exception]] = {}

    async def attempt(name: str, write: object) -> None:
        try:
            await write  # type: ignore[misc]
        except (RunRecordConflict, RunNotFound) as exc:
            failures[name] = type(exc)

    async with trio.open_nursery() as nursery:
        for i in range(10):
            first = 5 if i == 3 else 1  # r3's append does not continue its log
            nursery.start_soon(attempt, f"r{i}", store.append_run_records(f"r{i}", records(first, 2), "running"))
        for i in range(8):
            nursery.start_soon(attempt, f"new{i}", store.create_run(f"new{i}", "b", records(0, 1 + i % 3)))
        nursery.start_soon(attempt, "ghost", store.append_run_records("ghost", records(0, 1), "running"))
        nursery.start_soon(attempt, "taken", store.create_run("taken", "b", records(0, 1)))
    assert failures == {"r3": RunRecordConflict, "ghost": RunNotFound, "taken": RunRecordConflict}
    for i in range(10):
        expected = records(0, 1) if i == 3 else records(0, 3)
        assert await store.read_run_records(f"r{i}") == expected
    for i in range(8):
        assert await store.read_run_records(f"new{i}") == records(0, 1 + i % 3)
        assert (await store.run_summary(f"new{i}")).agent == "b"
    assert await store.read_run_records("taken") == ()
    assert len(await store.runs()) == 19
