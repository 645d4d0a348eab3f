"""`helikon run --store/--resume/--session` through real subprocesses: a recorded run's id, a run killed with
SIGKILL mid-tool and resumed to its answer, a session carried across runs, and the errors (exit 1 and 2)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.cli.test_run_cli import AGENTS, ROOT, _env, helikon

from helikon_fc.core import AgentEvent, AgentUpdated, MessageOutput, RunCompleted, RunStarted, ToolCallItem, from_json

RECORDING = re.compile(r"helikon run: recording run (\S+) in ")


def events_of(stdout: str) -> list[AgentEvent]:
    return [from_json(AgentEvent, line) for line in stdout.splitlines()]


def test_store_records_the_run_and_prints_its_id(tmp_path: Path) -> None:
    """With ``--store`` the run is recorded: its id goes to stderr, is on `RunStarted`, and `helikon runs list`
    shows it completed."""
    store = str(tmp_path / "runs.db")
    done = helikon("run", f"{AGENTS}:budget", "How much on dining?", "--store", store, "--json")
    assert done.returncode == 0, done.stderr
    found = RECORDING.search(done.stderr)
    assert found is not None, done.stderr
    run_id = found.group(1)
    events = events_of(done.stdout)
    assert events[0] == RunStarted("budget", run_id)
    assert isinstance(events[-1], RunCompleted) and events[-1].usage.requests == 2
    listed = helikon("runs", "list", "--store", store)
    assert listed.returncode == 0, listed.stderr
    assert re.search(rf"{run_id}\s+budget\s+completed", listed.stdout), listed.stdout


def test_a_killed_run_resumes_to_its_answer(tmp_path: Path) -> None:
    """A run SIGKILLed while its tool runs is continued by ``--resume RUN_ID``: the tool in flight is made again,
    the model is not asked twice for the tool call, and the run completes (exit 0) with the whole run's usage."""
    store = str(tmp_path / "runs.db")
    command = [sys.executable, "-m", "helikon_fc", "run", f"{AGENTS}:statements", "Sum up.", "--store", store, "--json"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(HELIKON_TEST_HANG="1"), cwd=ROOT
    )
    assert process.stdout is not None
    try:
        for line in process.stdout:  # wait until the tool is running
            if '"type":"tool_call"' in line:
                break
        process.send_signal(signal.SIGKILL)
        _, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:  # pragma: no cover - only when the test fails
            process.kill()
    assert process.returncode == -signal.SIGKILL
    found = RECORDING.search(errors)
    assert found is not None, errors
    run_id = found.group(1)
    assert re.search(rf"{run_id}\s+statements\s+running", helikon("runs", "list", "--store", store).stdout)

    resumed = helikon("run", f"{AGENTS}:statements", "--resume", run_id, "--store", store, "--json")
    assert resumed.returncode == 0, resumed.stderr
    events = events_of(resumed.stdout)
    assert events[0] == RunStarted("statements", run_id)
    assert sum(isinstance(e, ToolCallItem) for e in events) <= 1  # (its boundary's events may go out again)
    last = events[-1]
    assert isinstance(last, RunCompleted) and last.usage.requests == 2  # the tool call was not asked for again
    assert "From the statement 2026-11: $688." in resumed.stdout
    assert "recording run" not in resumed.stderr  # a resumed run keeps its id


def test_a_session_carries_the_conversation_across_runs(tmp_path: Path) -> None:
    """Two runs with ``--session alice`` on one store: the second run's model sees the first run's question and
    answer before its own question; another session starts empty."""
    store = str(tmp_path / "app.db")
    first = helikon("run", f"{AGENTS}:remembering", "hi", "--store", store, "--session", "alice")
    second = helikon("run", f"{AGENTS}:remembering", "again", "--store", store, "--session", "alice")
    other = helikon("run", f"{AGENTS}:remembering", "hi", "--store", store, "--session", "bob")
    assert (first.returncode, second.returncode, other.returncode) == (0, 0, 0), second.stderr
    assert "I have seen 1 items." in first.stdout
    assert "I have seen 3 items." in second.stdout
    assert "I have seen 1 items." in other.stdout


def test_resume_errors_name_what_is_wrong(tmp_path: Path) -> None:
    """An unknown run id exits 1 naming it; a run of another agent exits 1 saying what differs (its name);
    ``--resume``/``--session`` without ``--store``, or ``--resume`` with a prompt, are usage errors (exit 2)."""
    store = str(tmp_path / "runs.db")
    done = helikon("run", f"{AGENTS}:budget", "How much on dining?", "--store", store)
    assert done.returncode == 0, done.stderr
    found = RECORDING.search(done.stderr)
    assert found is not None
    unknown = helikon("run", f"{AGENTS}:budget", "--resume", "nope", "--store", store)
    assert unknown.returncode == 1
    assert "no run 'nope' is recorded in" in unknown.stderr and "Traceback" not in unknown.stderr
    other = helikon("run", f"{AGENTS}:remembering", "--resume", found.group(1), "--store", store)
    assert other.returncode == 1 and "Traceback" not in other.stderr
    assert "recorded by agent 'budget', not 'remembering': the agent's name differs" in other.stderr
    for args, message in (
        (("--resume", "r1"), "--resume needs --store"),
        (("--session", "alice"), "--session needs --store"),
    ):
        bad = helikon("run", f"{AGENTS}:budget", "hi", *args)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
    empty = helikon("run", f"{AGENTS}:budget", "hi", "--store", "")
    assert empty.returncode == 2 and "--store needs a SQLite file path" in empty.stderr
    with_prompt = helikon("run", f"{AGENTS}:budget", "hi", "--resume", "r1", "--store", store)
    assert with_prompt.returncode == 2 and "give no prompt" in with_prompt.stderr
    no_prompt = helikon("run", f"{AGENTS}:budget")
    assert no_prompt.returncode == 2 and "prompt" in no_prompt.stderr


def _killed_in_the_tool(store: str, target: str, tool: str) -> str:
    """Start ``helikon run TARGET --store STORE --json``, SIGKILL it while `tool` runs; the run id."""
    command = [sys.executable, "-m", "helikon_fc", "run", target, "Was it paid?", "--store", store, "--json"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(HELIKON_TEST_HANG="1"), cwd=ROOT
    )
    assert process.stdout is not None
    try:
        for line in process.stdout:  # wait until the tool is running
            if '"type":"tool_call"' in line and tool in line:
                break
        process.send_signal(signal.SIGKILL)
        _, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:  # pragma: no cover - only when the test fails
            process.kill()
    found = RECORDING.search(errors)
    assert found is not None, errors
    return found.group(1)


def test_a_handoff_killed_in_its_targets_tool_resumes_under_the_target(tmp_path: Path) -> None:
    """Killed during the handoff target's tool call, ``--resume`` shows the target active before its tool call and
    answer (the answer printed once, under the target's name); resuming the finished run prints its answer again."""
    store = str(tmp_path / "runs.db")
    run_id = _killed_in_the_tool(store, f"{AGENTS}:triage", "fetch_statement")
    resumed = helikon("run", f"{AGENTS}:triage", "--resume", run_id, "--store", store, "--json")
    assert resumed.returncode == 0, resumed.stderr
    events = events_of(resumed.stdout)
    active = [i for i, event in enumerate(events) if event == AgentUpdated("billing")]
    calls = [i for i, event in enumerate(events) if isinstance(event, ToolCallItem | MessageOutput)]
    assert active and calls and active[0] < calls[0], events
    finished = helikon("run", f"{AGENTS}:triage", "--resume", run_id, "--store", store)
    assert finished.returncode == 0, finished.stderr
    answer = "From the statement 2026-11: $688."
    assert finished.stdout.count(answer) == 1, finished.stdout
    assert f"billing: {answer}" in finished.stdout
