"""`helikon record` through a real subprocess: it writes a recording that `helikon replay` shows and that
replays offline as the recorded run; bad arguments are named."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_run_cli import helikon
from tests.testing.recorded_agents import build

from helikon_fc.core import RunCompleted
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import Recording, replay

AGENTS = "tests/testing/recorded_agents.py"


def _record(tmp_path: Path) -> Path:
    out = tmp_path / "case.json"
    done = helikon("record", f"{AGENTS}:build", "What are the fees of basic?", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}: 5 agent run(s), 6 model call(s)" in done.stderr
    return out


def test_record_writes_a_recording_that_replays_offline_as_the_recorded_run(tmp_path: Path) -> None:
    """The file holds every agent run of the nested system with its model calls, and replayed on its own
    model (offline, in virtual time) the system ends as the recorded run did, with the same usage."""
    recording = Recording.read(_record(tmp_path))
    assert sorted(run.agent for run in recording.runs) == ["billing", "desk", "researcher", "summary", "triage"]
    assert len(recording.calls) == 6 and all(call.request is not None for call in recording.calls)
    simulation = replay(build(recording.model()), recording, store=MemoryStore())
    assert simulation.error is None, simulation.error
    assert isinstance(recording.events[-1], RunCompleted)
    assert simulation.events[-1] == recording.events[-1]
    assert simulation.events[0] == recording.events[0]


def test_replay_shows_a_recording_file_as_the_live_view_would(tmp_path: Path) -> None:
    """`helikon replay case.json` renders the recorded run's answers and usage and exits 0."""
    done = helikon("replay", str(_record(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert "billing: Billing: Fees: 2% per trade" in done.stdout
    assert "6 model requests" in done.stdout


def test_replay_rebuilds_the_events_of_a_recording_without_them(tmp_path: Path) -> None:
    """A recording file holding only records (no events) is shown from its records."""
    path = _record(tmp_path)
    document = json.loads(path.read_text(encoding="utf-8"))
    document["events"] = []
    path.write_text(json.dumps(document), encoding="utf-8")
    done = helikon("replay", str(path))
    assert done.returncode == 0, done.stderr
    assert "billing: Billing: Fees: 2% per trade" in done.stdout
    assert "6 model requests" in done.stdout


def test_replay_names_a_broken_recording_file(tmp_path: Path) -> None:
    """A recording whose record is not in the wire format exits 2 naming the file and the record."""
    path = _record(tmp_path)
    document = json.loads(path.read_text(encoding="utf-8"))
    document["runs"][0]["records"][0]["agent"] = 7
    path.write_text(json.dumps(document), encoding="utf-8")
    done = helikon("replay", str(path))
    assert done.returncode == 2
    assert f"{path}: not a valid recording: runs[0].records[0]" in done.stderr


def test_record_refuses_an_out_folder_that_does_not_exist(tmp_path: Path) -> None:
    """`--out` into a missing folder exits 2 naming it, before anything runs."""
    done = helikon("record", f"{AGENTS}:build", "Hi", "--out", str(tmp_path / "missing" / "case.json"))
    assert done.returncode == 2
    assert "does not exist" in done.stderr and "missing" in done.stderr


def test_record_needs_out() -> None:
    """Without `--out` the usage error names it."""
    done = helikon("record", f"{AGENTS}:build", "Hi")
    assert done.returncode == 2
    assert "--out" in done.stderr
