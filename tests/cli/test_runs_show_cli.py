"""`helikon runs show RUN --store PATH` renders a recorded run as the live view showed it; `runs list/show --json`;
ids that copy-paste; and `helikon replay` pointed at the store itself says what to do instead."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from helikon_fc.cli import main
from helikon_fc.core import AgentEvent, HandoffItem, RunCompleted, RunStarted, from_json

ROOT = Path(__file__).resolve().parents[2]
TRIAGE = str(ROOT / "examples" / "triage_handoff.py") + ":triage"
GRAPH = str(ROOT / "examples" / "graph_report.py") + ":graph"


def _record(target: str, store: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    """Run `target` with ``--store``; its run id and the lines the live view showed (the elapsed time left out)."""
    assert main(["run", target, "How did it go?", "--store", str(store), "--no-color"]) == 0
    captured = capsys.readouterr()
    found = re.search(r"recording run (\S+) in", captured.err)
    assert found is not None, captured.err
    return found.group(1), [re.sub(r" in \d+\.\d\d s", "", line) for line in captured.out.splitlines()]


def test_runs_show_renders_a_handoff_run_as_the_live_view_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under its summary line, ``runs show`` prints the lines ``helikon run`` printed live: the run, the tool call
    and result, the handoff, the target's answer and the usage."""
    store = tmp_path / "runs.db"
    run_id, live = _record(TRIAGE, store, capsys)
    assert main(["runs", "show", run_id, "--store", str(store), "--no-color"]) == 0
    headline, *shown = capsys.readouterr().out.splitlines()
    assert headline.startswith(f"run {run_id}  agent triage  completed  ")
    assert shown == live
    assert "  => handoff triage -> investing specialist" in shown


def test_runs_show_renders_each_graph_node_with_its_own_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A workflow's children are recorded as runs of their own; ``runs show`` puts each node's calls and answer
    under its name, whole, and ends with the graph's usage and cost."""
    store = tmp_path / "runs.db"
    run_id, _ = _record(GRAPH, store, capsys)
    assert main(["runs", "show", run_id, "--store", str(store), "--no-color"]) == 0
    shown = capsys.readouterr().out.splitlines()[1:]
    for node, line in (("spending", "  spending: Spending: $228.30"), ("income", "  income: Income: $4,900")):
        start = shown.index(f"  active agent: {node}")
        assert shown[start + 3].startswith(line), shown
    assert shown[-1] == "  done - usage: 50 input + 25 output tokens, 5 model requests - cost: no price for 'scripted'"


def test_runs_show_json_prints_the_events_that_replay_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``runs show --json`` prints the run's events in the wire format, one per line: they parse back, and
    ``helikon replay`` renders them with the run's exit status."""
    store = tmp_path / "runs.db"
    run_id, _ = _record(TRIAGE, store, capsys)
    assert main(["runs", "show", run_id, "--store", str(store), "--json"]) == 0
    out = capsys.readouterr().out
    events = [from_json(AgentEvent, line) for line in out.splitlines()]
    assert events[0] == RunStarted("triage", run_id=run_id)
    assert any(isinstance(event, HandoffItem) for event in events) and isinstance(events[-1], RunCompleted)
    recording = tmp_path / "run.jsonl"
    recording.write_text(out)
    assert main(["replay", str(recording), "--no-color"]) == 0
    assert "investing specialist: First keep three months" in capsys.readouterr().out


def test_runs_list_quotes_ids_with_spaces_so_they_paste_into_runs_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A handoff target's run id holds the target's name (``.../handoff:investing specialist``): ``runs list``
    prints it shell-quoted, so the copied word is one argument that ``runs show`` finds."""
    store = tmp_path / "runs.db"
    run_id, _ = _record(TRIAGE, store, capsys)
    assert main(["runs", "list", "--store", str(store)]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    child = next(row for row in rows if "handoff:" in row)
    pasted = shlex.split(child)[0]
    assert pasted == f"{run_id}/handoff:investing specialist"
    assert main(["runs", "show", pasted, "--store", str(store), "--no-color"]) == 0
    assert "investing specialist: First keep three months" in capsys.readouterr().out


def test_runs_list_json_prints_one_object_per_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``runs list --json`` prints one JSON object per run, newest first, with its id, agent, status and counts."""
    store = tmp_path / "runs.db"
    run_id, _ = _record(TRIAGE, store, capsys)
    assert main(["runs", "list", "--store", str(store), "--json"]) == 0
    runs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {run["run_id"] for run in runs} == {run_id, f"{run_id}/handoff:investing specialist"}
    top = next(run for run in runs if run["run_id"] == run_id)
    assert top["agent"] == "triage" and top["status"] == "completed" and top["records"] == 5
    assert set(top) == {"run_id", "agent", "status", "records", "last_kind", "created_at", "updated_at"}


def test_replay_of_the_store_itself_says_what_to_run_instead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``helikon replay runs.db`` (the SQLite store, not a file of events) exits 2 pointing at ``runs list`` and
    ``runs show`` (it was a `UnicodeDecodeError` traceback)."""
    store = tmp_path / "runs.db"
    _record(TRIAGE, store, capsys)
    with pytest.raises(SystemExit) as info:
        main(["replay", str(store)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"{store} is a SQLite store, not a file of events" in err
    assert f"helikon runs show RUN_ID --store {store}" in err
    binary = tmp_path / "noise.bin"
    binary.write_bytes(bytes(range(128, 256)))
    with pytest.raises(SystemExit) as info:
        main(["replay", str(binary)])
    assert info.value.code == 2 and "is not a text file of events" in capsys.readouterr().err
