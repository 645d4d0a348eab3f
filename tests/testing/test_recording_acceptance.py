"""Acceptance of issue 27 §1 from a user's side: workflow children (sequential, parallel, graph, loop) and a
swarm replay identically from their recording, and a changed conversation is reported as the first
divergence, naming agent and turn, with a readable diff."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import trio
import trio.testing
from tests.cli.test_run_cli import events_of, helikon
from tests.testing.recorded_agents import build as build_nested, fee_table, scripted

from helikon_fc import (
    Agent,
    GraphAgent,
    LlmAgent,
    LoopAgent,
    Model,
    ParallelAgent,
    SequentialAgent,
    SwarmAgent,
    Tool,
    function_tool,
)
from helikon_fc.core import ModelRequest, RunCompleted, RunFailed, RunStarted, UserMessage
from helikon_fc.stores import MemoryStore, SQLiteStore
from helikon_fc.testing import (
    FunctionModel,
    Recording,
    RecordingDiverged,
    RecordingFileError,
    ScriptedTurn,
    call,
    call_tools,
    deterministic_scheduling,
    record,
    replay,
    reply,
    simulate,
)

NESTED = "tests/testing/recorded_agents.py"
TARGETS = "tests/evals/acceptance_targets.py"
LATENCY = {"plan": 0.4, "draft": 0.7, "check": 0.2, "left": 1.5, "right": 0.5, "merge": 0.3}


def _answer(request: ModelRequest) -> ScriptedTurn:
    """Each agent answers after a latency of its own, with what it was asked (so a changed input shows)."""
    role = request.instructions or ""
    asked = " | ".join(item.text for item in request.items if isinstance(item, UserMessage))
    if role == "triage":
        return call_tools(call("transfer_to_budgeting"), latency=0.1)
    if role == "budgeting":
        return call_tools(call("transfer_to_investing"), latency=0.2)
    if role == "investing":
        return reply(f"invest: {asked}", latency=0.3)
    return reply(f"{role}: {asked}", latency=LATENCY.get(role, 0.1))


def _llm(name: str, model: Model) -> LlmAgent[None]:
    return LlmAgent(name=name, model=model, instructions=name, description=f"The {name} agent.")


def _sequential(model: Model) -> Agent[None]:
    return SequentialAgent[None]("pipeline").then(_llm("plan", model)).then(_llm("draft", model))


def _parallel(model: Model) -> Agent[None]:
    return ParallelAgent[None]("fan").add(_llm("left", model)).add(_llm("right", model))


def _graph(model: Model) -> Agent[None]:
    return (
        GraphAgent[None]
        .builder()
        .name("dag")
        .node("left", _llm("left", model))
        .node("right", _llm("right", model))
        .node("merge", _llm("merge", model))
        .edge("left", "merge")
        .edge("right", "merge")
        .build()
    )


def _loop(model: Model) -> Agent[None]:
    return LoopAgent[None]("refine", "Draft then check.", 2).then(_llm("draft", model)).then(_llm("check", model))


def _nested(model: Model) -> Agent[None]:
    """A sequential workflow whose second step is a parallel fan-out and third a graph."""
    return SequentialAgent[None]("outer").then(_llm("plan", model)).then(_parallel(model)).then(_graph(model))


def _swarm(model: Model) -> Agent[None]:
    return (
        SwarmAgent.builder()
        .name("support")
        .description("A finance support swarm.")
        .member(_llm("triage", model))
        .member(_llm("budgeting", model))
        .member(_llm("investing", model))
        .build()
    )


TOPOLOGIES: dict[str, Callable[[Model], Agent[None]]] = {
    "sequential": _sequential,
    "parallel": _parallel,
    "graph": _graph,
    "loop": _loop,
    "nested": _nested,
    "swarm": _swarm,
}


def _record(build: Callable[[Model], Agent[None]], text: str = "October spending?") -> Recording:
    async def main() -> Recording:
        return await record(build(FunctionModel(_answer, name="live")), text, store=MemoryStore(), run_id="case")

    with deterministic_scheduling():
        return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
def test_a_workflow_or_swarm_recording_replays_identically(topology: str) -> None:
    """Every child of the workflow (or member of the swarm) is answered from its own recording: the same
    events, usage and final output, in the recorded virtual time, and twice the same."""
    build = TOPOLOGIES[topology]
    recording = _record(build)
    live = simulate(build(FunctionModel(_answer, name="live")), "October spending?")
    first = replay(build(recording.model()), recording, store=MemoryStore())
    again = replay(build(recording.model()), recording, store=MemoryStore())
    assert first.events == recording.events
    assert again.events == first.events
    assert first.elapsed == live.elapsed == again.elapsed
    if topology == "loop":  # never escalates: it runs out of iterations, and so does its replay
        assert isinstance(first.events[-1], RunFailed) and repr(first.error) == repr(live.error)
        return
    terminal = recording.events[-1]
    assert isinstance(terminal, RunCompleted), terminal
    assert first.error is None, first.error
    assert first.result is not None and live.result is not None
    assert first.result.final_output == live.result.final_output
    assert first.result.usage == terminal.usage


def test_each_workflow_child_is_matched_to_its_own_recording() -> None:
    """The recording of a nested workflow holds a run for each child, with that child's calls."""
    recording = _record(_nested)
    agents = sorted(run.agent for run in recording.runs)
    assert agents.count("left") == 2 and agents.count("right") == 2 and "merge" in agents and "plan" in agents
    assert {made.agent for made in recording.calls} == {"plan", "left", "right", "merge"}
    assert [made.latency for made in recording.calls if made.agent == "left"] == [1.5, 1.5]


def test_a_sqlite_recording_of_a_swarm_replays_to_the_same_end() -> None:
    """Recorded in SQLite, read back from the store, the swarm ends as it did."""

    async def main() -> Recording:
        store = SQLiteStore(":memory:")
        await record(_swarm(FunctionModel(_answer)), "Can I invest?", store=store, run_id="s1")
        return await Recording.load(store, "s1")

    recording = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    simulation = replay(_swarm(recording.model()), recording)
    assert simulation.error is None, simulation.error
    assert simulation.result is not None and simulation.result.final_output == "invest: Can I invest?"


def test_a_changed_conversation_is_the_first_divergence_naming_agent_and_turn() -> None:
    """The same agents asked something else: the first request differs in the user's message; the model
    says which agent, which turn, and shows the conversation as a diff — not "script exhausted"."""
    recording = _record(_sequential)
    model = recording.model()
    simulation = simulate(_sequential(model), "November spending?")
    assert simulation.error is not None
    diverged = model.diverged
    assert isinstance(diverged, RecordingDiverged)
    assert (diverged.agent, diverged.turn) == ("plan", 0)
    assert "October spending?" in diverged.diff and "November spending?" in diverged.diff
    removed = [line for line in diverged.diff.splitlines() if line.startswith("-") and "October" in line]
    added = [line for line in diverged.diff.splitlines() if line.startswith("+") and "November" in line]
    assert removed and added
    message = str(diverged)
    assert "'plan'" in message and "turn 0" in message and "exhausted" not in message
    assert isinstance(simulation.events[-1], RunFailed)


def test_a_divergence_deep_in_a_workflow_names_the_child_and_its_turn() -> None:
    """Only the graph's merge node changed (its instructions): the divergence names `merge`, not a
    sibling, and its run id is the graph child's."""
    recording = _record(_graph)
    model = recording.model()

    def changed(model: Model) -> Agent[None]:
        left, right = _llm("left", model), _llm("right", model)
        merge = LlmAgent[None](name="merge", model=model, instructions="merge carefully")
        builder = GraphAgent[None].builder().name("dag").node("left", left).node("right", right)
        return builder.node("merge", merge).edge("left", "merge").edge("right", "merge").build()

    replayed = replay(changed(model), recording)
    assert replayed.error is not None
    diverged = model.diverged
    assert isinstance(diverged, RecordingDiverged)
    assert diverged.agent == "merge" and diverged.turn == 0
    assert diverged.run_id is not None and diverged.run_id.startswith("case/")
    assert "+" in diverged.diff and "merge carefully" in diverged.diff


def test_a_run_recorded_by_helikon_run_in_a_sqlite_file_replays_offline(tmp_path: Path) -> None:
    """`helikon run --store runs.db` records a nested run in a SQLite file; `Recording.load` from that file
    replays it offline to the same events, usage and output."""
    store = tmp_path / "runs.db"
    done = helikon("run", f"{NESTED}:build", "What are the fees of basic?", "--store", str(store), "--json")
    assert done.returncode == 0, done.stderr
    live = events_of(done.stdout)
    started = live[0]
    assert isinstance(started, RunStarted) and started.run_id is not None
    run_id = started.run_id

    async def load() -> Recording:
        return await Recording.load(SQLiteStore(str(store)), run_id)

    recording = trio.run(load)
    assert sorted(run.agent for run in recording.runs) == ["billing", "desk", "researcher", "summary", "triage"]
    simulation = replay(build_nested(recording.model()), recording)
    assert simulation.error is None, simulation.error
    assert simulation.events[-1] == live[-1]


def test_helikon_replay_exits_as_the_recorded_run_did(tmp_path: Path) -> None:
    """`helikon record` of a run that fails writes the recording and exits 1; `helikon replay case.json`
    shows it and exits 1 too; a completed run's recording replays with exit 0."""
    failed, completed = tmp_path / "failed.json", tmp_path / "completed.json"
    done = helikon("record", f"{TARGETS}:broken", "Hi", "--out", str(failed))
    assert done.returncode == 1 and failed.exists(), done.stderr
    assert "the recorded run failed" in done.stderr and "the model is down" in done.stderr
    shown = helikon("replay", str(failed))
    assert shown.returncode == 1, shown.stderr
    assert "the model is down" in shown.stdout + shown.stderr
    done = helikon("record", f"{NESTED}:build", "What are the fees of basic?", "--out", str(completed))
    assert done.returncode == 0, done.stderr
    assert helikon("replay", str(completed)).returncode == 0


def test_reading_a_helikon_run_json_file_as_a_recording_says_what_to_do_instead(tmp_path: Path) -> None:
    """The events of `helikon run --json` leave out what a replay needs (agent-as-tool sub-runs, each call's
    request and usage): `Recording.read` of such a file says it is a file of events and how to record one,
    instead of a JSON parser's "Extra data"."""
    events = tmp_path / "run.jsonl"
    done = helikon("run", f"{NESTED}:build", "What are the fees of basic?", "--json")
    assert done.returncode == 0, done.stderr
    events.write_text(done.stdout)
    with pytest.raises(RecordingFileError) as info:
        Recording.read(events)
    message = str(info.value)
    assert str(events) in message and "Extra data" not in message
    assert "helikon run --json" in message and "helikon record" in message and "--store" in message


@pytest.mark.parametrize("topology", ["graph", "swarm", "nested"])
def test_a_recording_file_of_a_workflow_reads_back_and_replays(tmp_path: Path, topology: str) -> None:
    """Saved to a file and read back, a workflow's or swarm's recording is equal and replays identically."""
    build = TOPOLOGIES[topology]
    recording = _record(build)
    path = tmp_path / "case.json"
    recording.save(path)
    again = Recording.read(path)
    assert again == recording
    assert replay(build(again.model()), again, store=MemoryStore()).events == recording.events


def test_a_changed_swarm_member_is_named_in_the_divergence() -> None:
    """The swarm's investing member got new instructions: the replay diverges at `investing`, turn 0."""
    recording = _record(_swarm)
    model = recording.model()
    changed = (
        SwarmAgent.builder()
        .name("support")
        .description("A finance support swarm.")
        .member(_llm("triage", model))
        .member(_llm("budgeting", model))
        .member(
            LlmAgent[None](
                name="investing", model=model, instructions="invest boldly", description="The investing agent."
            )
        )
        .build()
    )
    assert replay(changed, recording).error is not None
    diverged = model.diverged
    assert isinstance(diverged, RecordingDiverged)
    assert (diverged.agent, diverged.turn) == ("investing", 0)
    assert "invest boldly" in diverged.diff


def test_a_tool_that_now_returns_something_else_diverges_at_the_turn_that_reads_it() -> None:
    """Same schema, another result: the researcher's second request (turn 1) carries the new tool output,
    and the diff shows the old and the new result."""

    @function_tool(name="fee_table")
    async def pricier(plan: str) -> str:
        """The fees of a plan.

        Args:
            plan: the plan's name.
        """
        return "3% per trade"

    def researcher(model: Model, tool: Tool[None]) -> LlmAgent[None]:
        return LlmAgent(name="researcher", model=model, instructions="Research fees.", tools=[tool])

    async def main() -> Recording:
        return await record(researcher(scripted(), fee_table), "Fees of basic?", store=MemoryStore(), run_id="r")

    recording = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    model = recording.model()
    assert replay(researcher(model, pricier), recording).error is not None
    diverged = model.diverged
    assert isinstance(diverged, RecordingDiverged)
    assert (diverged.agent, diverged.turn) == ("researcher", 1)
    assert "2% per trade" in diverged.diff and "3% per trade" in diverged.diff
