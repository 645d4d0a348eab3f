"""A recording read from the events `helikon run --json` printed replays the run: the same events, output
and usage, and a changed agent is reported where it diverged (by order: events keep no requests)."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from tests.cli.test_run_cli import helikon
from tests.testing.event_agents import build, build_advisor

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import ModelFailed, RunCompleted
from helikon_fc.testing import Recording, RecordingDiverged, RecordingFileError, replay

AGENTS = "tests/testing/event_agents.py:desk"
PROMPT = "What are the basic fees?"


def _events_file(tmp_path: Path) -> Path:
    """The events of a real `helikon run --json` of the triage → billing agents (a handoff, then a tool call)."""
    done = helikon("run", AGENTS, PROMPT, "--json")
    assert done.returncode == 0, done.stderr
    path = tmp_path / "run.jsonl"
    path.write_text(done.stdout, encoding="utf-8")
    return path


def test_replaying_a_helikon_run_json_file_gives_back_the_same_events_output_and_usage(tmp_path: Path) -> None:
    recording = Recording.read(_events_file(tmp_path), input=PROMPT)
    assert [(call.agent, call.turn) for call in recording.calls] == [("triage", 0), ("billing", 0), ("billing", 1)]
    replayed = replay(build(recording.model()), recording)
    assert replayed.error is None and replayed.result is not None
    assert replayed.events == recording.events  # RunStarted.run_id is None in both: neither run had a store
    completed = recording.events[-1]
    assert isinstance(completed, RunCompleted) and completed.usage.requests == 3
    assert replayed.result.final_output == "Fees: 2% per trade"
    assert replayed.result.usage == completed.usage
    assert replay(build(recording.model()), recording).events == replayed.events  # identically every time


def test_a_model_call_more_than_recorded_is_reported_with_its_agent_and_turn(
    tmp_path: Path,
) -> None:
    recording = Recording.read(_events_file(tmp_path), input=PROMPT)
    model = recording.model()
    changed = replay(build(model, structured=True), recording)
    diverged = model.diverged
    assert isinstance(diverged, RecordingDiverged)
    assert (diverged.agent, diverged.turn) == ("billing", 2)
    assert isinstance(changed.error, ModelFailed) and "helikon record" in changed.error.message
    assert "turn 1 of agent 'billing'" in str(diverged)


def test_a_recorded_tool_call_the_changed_agent_does_not_offer_is_the_divergence(tmp_path: Path) -> None:
    recording = Recording.read(_events_file(tmp_path), input=PROMPT)
    model = recording.model()
    replay(LlmAgent(name="triage", model=model, instructions="Route the user."), recording)
    diverged = model.diverged
    assert isinstance(diverged, RecordingDiverged)
    assert (diverged.agent, diverged.turn) == ("triage", 0)
    assert "'transfer_to_billing', which the request does not offer" in str(diverged)


def test_an_event_file_without_the_input_says_to_pass_it(tmp_path: Path) -> None:
    path = _events_file(tmp_path)
    with pytest.raises(RecordingFileError, match=r"run\.jsonl: a file of events .*pass the input.*input="):
        Recording.read(path)
    with pytest.raises(TypeError, match=r"Recording\.read"):
        Recording.read(path, input=42)  # type: ignore[arg-type]


def test_a_line_that_is_not_an_event_is_named(tmp_path: Path) -> None:
    path = _events_file(tmp_path)
    path.write_text(path.read_text(encoding="utf-8") + '{"type": "nonsense"}\n', encoding="utf-8")
    with pytest.raises(RecordingFileError, match=r"line 26 is not an event"):
        Recording.read(path, input=PROMPT)


def _advisor_recording(tmp_path: Path, attribute: str) -> Recording:
    done = helikon("run", f"tests/testing/event_agents.py:{attribute}", PROMPT, "--json")
    assert done.returncode == 0, done.stderr
    path = tmp_path / "advisor.jsonl"
    path.write_text(done.stdout, encoding="utf-8")
    return Recording.read(path, input=PROMPT)


def test_an_agent_called_as_a_tool_is_answered_with_its_recorded_output(tmp_path: Path) -> None:
    """The researcher's sub-run is not in the events: its one model call is answered with the tool's output."""
    recording = _advisor_recording(tmp_path, "advisor")
    assert [call.agent for call in recording.calls] == ["advisor", "researcher", "advisor"]
    replayed = replay(build_advisor(recording.model()), recording)
    assert replayed.events == recording.events
    assert replayed.result is not None and replayed.result.final_output == "Advice: found nothing"


def test_an_agent_called_as_a_tool_is_replayed_as_one_model_call(tmp_path: Path) -> None:
    """A sub-agent that made two model calls (a `fee_table` lookup, then its answer) is answered with one:
    the tokens are the recorded ones, but it counts one request (the events never show its others)."""
    recording = _advisor_recording(tmp_path, "advisor_looking_up")
    replayed = replay(build_advisor(recording.model()), recording)
    recorded, again = recording.events[-1], replayed.events[-1]
    assert isinstance(recorded, RunCompleted) and isinstance(again, RunCompleted)
    assert replayed.events[:-1] == recording.events[:-1]
    assert again.usage == attrs.evolve(recorded.usage, requests=recorded.usage.requests - 1)
    assert [share.usage.requests for share in again.usage_by_agent] == [2, 1]  # advisor, researcher
    assert [share.usage.requests for share in recorded.usage_by_agent] == [2, 2]


def test_a_tool_that_is_no_longer_an_agent_skips_its_recorded_answer(tmp_path: Path) -> None:
    """When the changed advisor's `researcher` is a plain function (no model call), the recorded sub-agent
    answer is passed over and the advisor's next turn is answered as recorded."""
    recording = _advisor_recording(tmp_path, "advisor")

    @function_tool(name="researcher")
    async def researcher(input: str) -> str:
        """Research.

        Args:
            input: the question.
        """
        return "found nothing"

    changed = LlmAgent(name="advisor", model=recording.model(), instructions="Advise.", tools=[researcher])
    replayed = replay(changed, recording)
    assert replayed.result is not None and replayed.result.final_output == "Advice: found nothing"
