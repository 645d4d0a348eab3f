"""Recording a nested run (handoff, agent-as-tool, parallel) and replaying it: the same run, or where it diverged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
import trio
import trio.testing
from tests.testing.recorded_agents import build, fee_table, scripted

from helikon_fc import LlmAgent, Model, RunContext, Runner, RunResultStreaming
from helikon_fc.core import (
    AgentEvent,
    AgentUpdated,
    ModelFailed,
    ModelFailureKind,
    ParallelFailed,
    RunCompleted,
    RunFailed,
    RunStarted,
    SystemMessage,
)
from helikon_fc.models import ModelError
from helikon_fc.shell.control.hooks import HookDecision, HookPoint, InjectSystemMessage, OnTurnStart
from helikon_fc.shell.durable.storage import RunStore
from helikon_fc.stores import MemoryStore, SQLiteStore
from helikon_fc.testing import (
    RecordedCall,
    RecordedRun,
    Recording,
    RecordingDiverged,
    ScriptedModel,
    call,
    call_tools,
    deterministic_scheduling,
    fail,
    record,
    replay,
    reply,
)


def _recorded(store_factory: Callable[[], RunStore]) -> Recording:
    async def main() -> Recording:
        store = store_factory()
        return await record(build(scripted()), "What are the fees of basic?", store=store, run_id="case-1")

    with deterministic_scheduling():
        return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def _sqlite() -> RunStore:
    return SQLiteStore(":memory:")


def test_a_recording_holds_every_agent_run_with_its_model_calls() -> None:
    """The recording of a nested run has the root, its parallel branches, the handoff target and the
    agent-as-tool sub-run, each with its own calls, requests and latencies."""
    recording = _recorded(MemoryStore)
    agents = {run.run_id: run.agent for run in recording.runs}
    assert recording.runs[0].run_id == "case-1"
    assert sorted(agents.values()) == ["billing", "desk", "researcher", "summary", "triage"]
    assert any("/handoff:billing" in run_id for run_id in agents)
    assert any("/tool:" in run_id for run_id in agents)
    by_agent: dict[str, list[RecordedCall]] = {}
    for made in recording.calls:
        by_agent.setdefault(made.agent, []).append(made)
    assert [made.latency for made in by_agent["billing"]] == [0.2, 0.3]
    assert [made.turn for made in by_agent["researcher"]] == [0, 1]
    assert all(made.request is not None for made in recording.calls)
    first = by_agent["researcher"][0].request
    assert first is not None and first.instructions == "Research fees."
    assert [tool.name for tool in first.tools] == ["fee_table"]
    assert isinstance(recording.events[-1], RunCompleted)


def test_replaying_an_unchanged_agent_gives_back_the_recorded_run() -> None:
    """Replayed on its recording under a store, the unchanged system streams exactly the recorded events
    (usage and final output included), and does so every time."""
    recording = _recorded(MemoryStore)
    agent = build(recording.model())
    first = replay(agent, recording, store=MemoryStore())
    again = replay(agent, recording, store=MemoryStore())
    assert first.error is None, first.error
    assert first.events == recording.events
    assert again.events == first.events
    assert first.result is not None and isinstance(recording.events[-1], RunCompleted)
    assert first.result.usage == recording.events[-1].usage
    assert first.elapsed == again.elapsed


def _runs(recording: Recording) -> dict[str, RecordedRun]:
    return {run.run_id: run for run in recording.runs}


@pytest.mark.parametrize("store_factory", [MemoryStore, _sqlite], ids=["memory", "sqlite"])
def test_a_replay_records_what_was_recorded(store_factory: Callable[[], RunStore]) -> None:
    """Recorded in a store and replayed into one of its kind, every agent run records the same log again.

    (A SQLite store writes from worker threads, which the virtual clock sees as idle: how concurrent
    branches interleave is not fixed there, so the whole stream is compared under `MemoryStore` above.)
    """
    recording = _recorded(store_factory)
    store = store_factory()
    simulation = replay(build(recording.model()), recording, store=store)
    assert simulation.error is None, simulation.error
    replayed = trio.run(Recording.load, store, recording.run_id)
    assert _runs(replayed) == _runs(recording)
    assert simulation.events[-1] == recording.events[-1]


def test_a_recording_reads_the_same_from_every_store() -> None:
    """The same run recorded in SQLite and in memory gives equal agent runs and model calls, and the SQLite
    recording replayed in memory ends as the run recorded in memory did."""
    in_memory, in_sqlite = _recorded(MemoryStore), _recorded(_sqlite)
    assert _runs(in_sqlite) == _runs(in_memory)
    replayed = replay(build(in_sqlite.model()), in_sqlite, store=MemoryStore())
    assert replayed.events[-1] == in_memory.events[-1]


def test_replaying_without_a_store_gives_the_recorded_outcome() -> None:
    """Without a store the replay is not recorded (its `RunStarted` has no run id, and its branches, with no
    store writes between their steps, interleave otherwise): the final output and usage are the recorded ones."""
    recording = _recorded(MemoryStore)
    simulation = replay(build(recording.model()), recording)
    assert simulation.events[0] == RunStarted("desk", run_id=None)
    assert simulation.events[-1] == recording.events[-1]
    shown = [repr(event) for event in simulation.events[1:] if not isinstance(event, AgentUpdated)]
    recorded = [repr(event) for event in recording.events[1:] if not isinstance(event, AgentUpdated)]
    assert sorted(shown) == sorted(recorded)


def test_the_replay_takes_the_recorded_latencies_in_virtual_time() -> None:
    """The replay takes as long, in virtual time, as the recorded run: the slower branch (0.45 s)
    is shorter than the handoff branch (0.1 + 0.2 + 0.25 + 0.15 + 0.3 s)."""
    recording = _recorded(MemoryStore)
    simulation = replay(build(recording.model()), recording)
    assert simulation.elapsed == pytest.approx(1.0)


def test_a_changed_tool_schema_is_reported_as_the_first_divergence_with_its_diff() -> None:
    """Billing offered one more tool than recorded: the replay fails at billing's first turn, and the
    `ModelFailed` shows the new tool's schema as added lines of a unified diff."""
    recording = _recorded(MemoryStore)
    model = recording.model()
    simulation = replay(build(model, tools=(fee_table,)), recording)
    assert isinstance(simulation.error, ParallelFailed)
    failure = simulation.error.failures[0]
    assert failure.key == "triage" and isinstance(failure.error, ModelFailed)
    diverged = model.diverged
    assert isinstance(diverged, RecordingDiverged)
    assert (diverged.agent, diverged.turn) == ("billing", 0)
    assert diverged.run_id is not None and diverged.run_id.endswith("/handoff:billing")
    assert "--- recorded: agent 'billing', turn 0" in diverged.diff
    assert "+  fee_table: The fees of a plan." in diverged.diff
    assert "agent 'billing', turn 0" in failure.error.message
    assert diverged.diff in failure.error.message
    assert "script has" not in failure.error.message


def test_changed_instructions_are_reported_for_the_sub_run_that_changed() -> None:
    """A changed researcher (the agent-as-tool sub-run) is named with its turn, its instructions shown as changed."""
    recording = _recorded(MemoryStore)
    model = recording.model()
    replay(build(model, research_instructions="Research fees carefully."), recording)
    diverged = model.diverged
    assert diverged is not None and (diverged.agent, diverged.turn) == ("researcher", 0)
    assert "-  Research fees." in diverged.diff
    assert "+  Research fees carefully." in diverged.diff


def test_a_recording_file_reads_back_equal(tmp_path: Path) -> None:
    """`save` then `read` gives back an equal recording, that replays the same."""
    recording = _recorded(MemoryStore)
    path = tmp_path / "case.json"
    recording.save(path)
    again = Recording.read(path)
    assert again == recording
    assert replay(build(again.model()), again, store=MemoryStore()).events == recording.events


def test_a_file_that_is_not_a_recording_is_refused_with_its_name(tmp_path: Path) -> None:
    """Reading a file of events (not a recording) says what it expected."""
    path = tmp_path / "events.jsonl"
    path.write_text('{"type": "turn_started", "turn": 0}\n', encoding="utf-8")
    from helikon_fc.testing import RecordingFileError

    with pytest.raises(RecordingFileError, match=r"events\.jsonl: not a recording.*helikon-recording"):
        Recording.read(path)


def test_a_second_run_in_the_same_trio_run_is_answered_again() -> None:
    """Two replays of the same case in one trio run (as an eval repeating a case) both get the recorded run."""
    recording = _recorded(MemoryStore)
    agent = build(recording.model())

    async def twice() -> list[tuple[AgentEvent, ...]]:
        outcomes: list[tuple[AgentEvent, ...]] = []
        for _ in range(2):
            stream = Runner(store=MemoryStore()).run(agent, RunContext.ephemeral(None), "What are the fees of basic?")
            outcomes.append((await RunResultStreaming(stream).collect()).events)
        return outcomes

    with deterministic_scheduling():
        first, second = trio.run(twice, clock=trio.testing.MockClock(autojump_threshold=0))
    assert first[1:] == recording.events[1:]
    assert second[1:] == recording.events[1:]


def test_a_request_never_recorded_names_the_closest_recorded_one_even_when_all_were_answered() -> None:
    """After every recorded call was answered, a changed request still diverges at the closest recorded one."""
    recording = _recorded(MemoryStore)
    model = recording.model()
    first = recording.calls[0].request
    assert first is not None
    changed = attrs.evolve(first, instructions="Something else.")

    async def main() -> None:
        for made in recording.calls:
            assert made.request is not None
            async with model.stream(made.request) as events:
                async for _ in events:
                    pass
        with pytest.raises(RecordingDiverged, match="at agent 'summary', turn 0") as caught:
            async with model.stream(changed):
                pass
        assert "+  Something else." in caught.value.diff

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_the_model_is_named_after_the_recorded_model() -> None:
    """The replay model takes the recorded model's name, so usage by model comes out the same."""
    recording = _recorded(MemoryStore)
    model: Model = recording.model()
    assert model.name == "scripted-llm"
    assert recording.model(name="other").name == "other"


def test_a_failed_recorded_run_keeps_its_terminal() -> None:
    """A recording's root terminal is readable (here a completed run)."""
    recording = _recorded(MemoryStore)
    assert not isinstance(recording.root.terminal, RunFailed)


def _without_requests(recording: Recording) -> Recording:
    """`recording` as records written before requests were recorded would give it (no "asked", no "latency")."""
    document = json.loads(recording.to_json())
    for run in document["runs"]:
        for body in run["records"]:
            body.pop("asked", None)
            body.pop("latency", None)
    return Recording.from_json(json.dumps(document))


def test_records_written_before_requests_were_recorded_still_replay_in_order() -> None:
    """A log whose model answers carry no request reads (with `request` `None`), and one agent's run replays
    from it in the recorded order."""
    model = ScriptedModel([call_tools(call("fee_table", plan="basic")), reply("2%")], name="m")
    agent = LlmAgent(name="fees", model=model, tools=[fee_table])

    async def main() -> Recording:
        return await record(agent, "Fees?", store=MemoryStore())

    old = _without_requests(trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)))
    assert [call.request for call in old.calls] == [None, None]
    replayed = replay(LlmAgent(name="fees", model=old.model(), tools=[fee_table]), old, store=MemoryStore())
    assert replayed.events == old.events


def test_the_recording_names_are_exported_from_helikon_fc_testing() -> None:
    """Every public name of the recording modules is in `helikon_fc.testing.__all__`, once."""
    import helikon_fc.testing as testing

    for name in ("Recording", "RecordingFileError", "RecordedCall", "RecordedRun", "ReplayModel"):
        assert name in testing.__all__
    for name in ("RecordingDiverged", "record", "replay"):
        assert name in testing.__all__
    assert testing.__all__ == sorted(set(testing.__all__))


async def _injecting(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
    await trio.lowlevel.checkpoint()
    return InjectSystemMessage(f"secret for turn {point.turn}") if isinstance(point, OnTurnStart) else None


def test_hook_injections_are_counted_not_recorded_and_the_run_replays() -> None:
    """An agent whose hook injects a system message each turn: the recording keeps the count, never the text,
    and the unchanged agent replays its run exactly."""

    def build_fees(model: Model) -> LlmAgent[None]:
        return LlmAgent(name="fees", model=model, tools=[fee_table], hooks=[_injecting])

    scripted_fees = ScriptedModel([call_tools(call("fee_table", plan="basic")), reply("2%")], name="m")

    async def main() -> Recording:
        return await record(build_fees(scripted_fees), "Fees?", store=MemoryStore())

    recording = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert "secret for turn" not in recording.to_json()
    assert [made.injected for made in recording.calls] == [1, 1]
    assert scripted_fees.requests[0].items[-1] == SystemMessage("secret for turn 0")
    replayed = replay(build_fees(recording.model()), recording, store=MemoryStore())
    assert replayed.events == recording.events


def test_a_run_that_failed_on_a_model_call_replays_to_the_same_failure() -> None:
    """A recorded run whose second model call failed (rate limited, with a retry-after hint) replays with the
    same events, ending in the same `RunFailed`; the failed call is in the recording as a `RecordedFailure`."""
    limited = ModelError(ModelFailureKind.RATE_LIMITED, "slow down", retry_after=2.0)
    scripted_fees = ScriptedModel([call_tools(call("fee_table", plan="basic")), fail(limited)], name="m")

    async def main() -> Recording:
        return await record(LlmAgent(name="fees", model=scripted_fees, tools=[fee_table]), "Fees?", store=MemoryStore())

    recording = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    failed = recording.root.failed_call
    assert failed is not None and (failed.agent, failed.turn) == ("fees", 1)
    assert failed.failure == ModelFailed(ModelFailureKind.RATE_LIMITED, "slow down", 2.0)
    replayed = replay(LlmAgent(name="fees", model=recording.model(), tools=[fee_table]), recording, store=MemoryStore())
    assert replayed.events == recording.events
    assert replayed.error == failed.failure
