"""Durable runs through a `Compacting` boundary: recorded, resumed after a crash at every write, counted once."""

from __future__ import annotations

import trio
from tests.compaction.fakes import STEPS, config, summariser, worker
from tests.durable.harness import CrashingStore

from helikon_fc import AgentInput, RunContext, Runner
from helikon_fc.core import AgentEvent, Compacted, Compacting, RunCompleted
from helikon_fc.core.records import Boundary
from helikon_fc.shell.durable.run_log import decode_records
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import FunctionModel

RUN_ID = "compacting-run"


async def _collect(stream) -> list[AgentEvent]:  # type: ignore[no-untyped-def]
    events: list[AgentEvent] = []
    async with stream as received:
        async for event in received:
            events.append(event)
    return events


async def _baseline() -> tuple[RunCompleted, int, int, MemoryStore]:
    store = MemoryStore()
    summary_model = summariser()
    agent, _ = worker(max_tokens=200, summariser=summary_model)
    events = await _collect(
        Runner(config(200, summary_model), store=store).run(
            agent, RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id=RUN_ID
        )
    )
    terminal = events[-1]
    assert isinstance(terminal, RunCompleted)
    writes = len(await store.read_run_records(RUN_ID))
    return terminal, len(summary_model.requests), writes, store


async def test_a_durable_run_records_its_compacting_boundaries() -> None:
    """The log holds a boundary in `Compacting` and the marker appended after it; the input is all still there."""
    terminal, summaries, _, store = await _baseline()
    bodies = decode_records(RUN_ID, await store.read_run_records(RUN_ID))
    boundaries = [body for body in bodies if isinstance(body, Boundary)]
    assert sum(isinstance(body.state, Compacting) for body in boundaries) == summaries >= 2
    markers = [item for body in boundaries for item in body.appends if isinstance(item, Compacted)]
    assert len(markers) == summaries
    assert terminal.usage.requests > summaries


async def test_a_crash_at_every_write_resumes_to_the_same_end() -> None:
    """Killed after any record write, the resumed run ends as the uninterrupted one: same answer, same usage.

    A summary that was recorded is never asked for again: across the crashed and the resumed run, the
    summary model is called at most once more than without the crash (the call in flight).
    """
    expected, summaries, writes, _ = await _baseline()
    for after in range(1, writes):
        store = MemoryStore()
        crashed_summary, resumed_summary = summariser(), summariser()
        with trio.CancelScope() as scope:
            crashing = CrashingStore(store, after, scope)
            agent, _ = worker(max_tokens=200, summariser=crashed_summary)
            stream = Runner(config(200, crashed_summary), store=crashing).run(
                agent, RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id=RUN_ID
            )
            await _collect(stream)
        agent, _ = worker(max_tokens=200, summariser=resumed_summary)
        runner = Runner(config(200, resumed_summary), store=store)
        events = await _collect(runner.resume(RUN_ID, agent, RunContext.ephemeral(None)))
        terminal = events[-1]
        assert isinstance(terminal, RunCompleted), (after, terminal)
        assert terminal.usage == expected.usage, after
        made = len(crashed_summary.requests) + len(resumed_summary.requests)
        assert summaries <= made <= summaries + 1, after


async def test_resuming_a_finished_compacted_run_makes_no_call() -> None:
    """A finished run resumed gives back its terminal; neither model is called."""
    expected, _, _, store = await _baseline()
    summary_model = summariser()
    agent, model = worker(max_tokens=200, summariser=summary_model)
    runner = Runner(config(200, summary_model), store=store)
    events = await _collect(runner.resume(RUN_ID, agent, RunContext.ephemeral(None)))
    assert events[-1] == expected
    assert not model.requests and not summary_model.requests
    assert isinstance(model, FunctionModel) and STEPS == 5


async def test_a_replayed_run_shows_what_the_live_run_showed() -> None:
    """Resumed with ``replay=True``, a finished compacting run gives back the live run's events: the summary's
    deltas, never delivered live, are not replayed either."""
    store = MemoryStore()
    agent, _ = worker(max_tokens=200, summariser=summariser())
    runner = Runner(config(200, summariser()), store=store)
    live = await _collect(runner.run(agent, RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id=RUN_ID))
    replayed = await _collect(runner.resume(RUN_ID, agent, RunContext.ephemeral(None), replay=True))
    assert [type(event) for event in replayed] == [type(event) for event in live]
    assert replayed[1:] == live[1:]
