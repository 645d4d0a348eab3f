"""`helikon run` and `helikon replay` through a real subprocess: exit statuses, the live view, `--json` events
parsed back, Ctrl-C, and errors that name what is wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helikon_fc.cli import main
from helikon_fc.core import (
    AgentEvent,
    AgentUpdated,
    Cancelled,
    MaxTurnsExceeded,
    RunCompleted,
    RunFailed,
    RunStarted,
    ToolCallItem,
    ToolOutputItem,
    from_json,
)

ROOT = Path(__file__).resolve().parents[2]
AGENTS = "tests/cli/cli_agents.py"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "HTTP", "HTTPS"))}
    env["NO_COLOR"] = "1"
    env["PYTHONPATH"] = str(ROOT / "src")  # the subprocess runs this tree's code
    env.update(extra)
    return env


def helikon(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "helikon_fc", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(**env),
        cwd=ROOT,
        check=False,
    )


def events_of(stdout: str) -> list[AgentEvent]:
    return [from_json(AgentEvent, line) for line in stdout.splitlines()]


def test_run_shows_the_agent_its_tool_calls_the_answer_and_usage_and_exits_0() -> None:
    """The live view names the agent, shows the tool call with its arguments and result, the answer, the usage
    and the elapsed time; a completed run exits 0."""
    done = helikon("run", f"{AGENTS}:budget", "How much on dining?")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "run budget" in out
    assert '-> get_spending {"category":"dining"}' in out
    assert "<- 212" in out
    assert "budget: You spent $212." in out
    assert "done in " in out and " s - usage: " in out and "2 model requests" in out


def test_run_json_prints_wire_format_events_that_parse_back() -> None:
    """`--json` prints one wire-format event per line: they parse back into events, `RunStarted` first and
    `RunCompleted` last, with the tool call and its result between."""
    done = helikon("run", f"{AGENTS}:budget", "How much on dining?", "--json")
    assert done.returncode == 0, done.stderr
    events = events_of(done.stdout)
    assert events[0] == RunStarted("budget")
    assert isinstance(events[-1], RunCompleted) and events[-1].usage.requests == 2
    assert any(isinstance(e, ToolCallItem) and e.item.name == "get_spending" for e in events)
    assert any(isinstance(e, ToolOutputItem) and e.item.output == "212" for e in events)


def test_a_failed_run_exits_1_with_its_error_shown() -> None:
    """A run that fails exits 1 and the view shows why; in `--json` mode the last event is its `RunFailed`."""
    done = helikon("run", f"{AGENTS}:broken", "hi")
    assert done.returncode == 1
    assert "failed" in done.stdout and "the model is down" in done.stdout
    as_json = helikon("run", f"{AGENTS}:broken", "hi", "--json")
    assert as_json.returncode == 1
    assert isinstance(events_of(as_json.stdout)[-1], RunFailed)


def test_max_turns_and_timeout_bound_the_run() -> None:
    """`--max-turns 2` ends a tool-calling loop with `MaxTurnsExceeded(2)` (exit 1)."""
    done = helikon("run", f"{AGENTS}:chatty", "hi", "--max-turns", "2", "--json")
    assert done.returncode == 1
    last = events_of(done.stdout)[-1]
    assert isinstance(last, RunFailed) and last.error == MaxTurnsExceeded(2)
    bad = helikon("run", f"{AGENTS}:chatty", "hi", "--timeout", "0")
    assert bad.returncode == 2 and "timeout" in bad.stderr and "positive" in bad.stderr


def test_ctrl_c_cancels_the_run_cleanly_and_exits_130() -> None:
    """SIGINT while a tool runs cancels the run: it still ends with its own `RunFailed(Cancelled)` event, no
    traceback, and the process exits 130."""
    process = subprocess.Popen(
        [sys.executable, "-m", "helikon_fc", "run", f"{AGENTS}:stuck", "hi", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        cwd=ROOT,
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        for line in process.stdout:  # wait until the tool is running
            lines.append(line)
            if '"type":"tool_call"' in line:
                break
        process.send_signal(signal.SIGINT)
        rest, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:  # pragma: no cover - only when the test fails
            process.kill()
    assert process.returncode == 130, errors
    assert "Traceback" not in errors
    last = events_of("".join(lines) + rest)[-1]
    assert isinstance(last, RunFailed) and isinstance(last.error, Cancelled)
    assert "Ctrl-C" in last.error.reason


def test_parallel_branches_are_told_apart() -> None:
    """Each branch of a `ParallelAgent` is announced before its output, so the view says whose answer is whose."""
    done = helikon("run", f"{AGENTS}:fan_out", "hi", "--json")
    assert done.returncode == 0, done.stderr
    events = events_of(done.stdout)
    announced = {e.agent for e in events if isinstance(e, AgentUpdated)}
    assert {"left", "right"} <= announced
    view = helikon("run", f"{AGENTS}:fan_out", "hi").stdout
    for branch in ("left", "right"):  # tokens may interleave: each line names its branch
        prefix = f"  {branch}: "
        streamed = "".join(line[len(prefix) :] for line in view.splitlines() if line.startswith(prefix))
        assert streamed == f"{branch} answer", view


def test_a_factory_taking_a_model_gets_none_without_model() -> None:
    """A factory with a parameter is called with the --model model, or `None` without --model; one with no
    parameters is called bare."""
    assert "built without a model" in helikon("run", f"{AGENTS}:build", "hi").stdout
    assert "You spent $212." in helikon("run", f"{AGENTS}:make_budget", "hi").stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((f"{AGENTS}:missing", "hi"), "has no attribute 'missing'"),
        ((f"{AGENTS}:not_an_agent", "hi"), "neither an agent nor a factory"),
        (("no_such_module_xyz:agent", "hi"), "cannot import no_such_module_xyz"),
        (("just-a-name", "hi"), "expected MODULE:ATTRIBUTE"),
        ((f"{AGENTS}:budget", "hi", "--model", "claude:opus"), "unknown provider 'claude'"),
        ((f"{AGENTS}:budget", "hi", "--model", "gpt-5-mini"), "PROVIDER:NAME"),
        ((f"{AGENTS}:budget", "hi", "--model", "openai:gpt-5-mini"), "no API key"),
        ((f"{AGENTS}:budget", "hi", "--base-url", "http://127.0.0.1:9/v1"), "add --model"),
        ((f"{AGENTS}:budget", "hi", "--model", "openai:x", "--api-key-env", "NOPE_KEY"), "NOPE_KEY is not set"),
        ((f"{AGENTS}:pipeline", "hi", "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1"), "factory"),
        ((f"{AGENTS}:budget", "hi", "--bogus"), "unrecognized arguments: --bogus"),
    ],
    ids=[
        "missing attribute",
        "not an agent",
        "no module",
        "no colon",
        "unknown provider",
        "no provider",
        "no key",
        "base url alone",
        "unset key variable",
        "workflow with --model",
        "unknown option",
    ],
)
def test_bad_arguments_exit_2_with_a_one_line_reason(
    args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every mistake on the command line exits 2 with the run command's usage and a message saying what is
    wrong; none falls back to the simulator silently (in-process: `main` is what the subprocess runs)."""
    for name in [name for name in os.environ if name.startswith("OPENAI")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit) as info:
        main(["run", *args])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "usage: helikon run" in captured.err
    assert captured.out == ""


def test_replay_renders_a_recorded_run_with_the_runs_exit_status(tmp_path: Path) -> None:
    """`helikon replay` renders what `helikon run --json` recorded, as the live view shows it, and exits with
    the recorded run's status."""
    recording = tmp_path / "run.jsonl"
    recording.write_text(helikon("run", f"{AGENTS}:budget", "hi", "--json").stdout, encoding="utf-8")
    done = helikon("replay", str(recording))
    assert done.returncode == 0, done.stderr
    assert '-> get_spending {"category":"dining"}' in done.stdout and "budget: You spent $212." in done.stdout
    failed = tmp_path / "failed.jsonl"
    failed.write_text(helikon("run", f"{AGENTS}:broken", "hi", "--json").stdout, encoding="utf-8")
    assert helikon("replay", str(failed)).returncode == 1


def test_replay_names_a_line_that_is_not_an_event(tmp_path: Path) -> None:
    """A damaged recording stops the replay with exit 2 and a message naming the file and line."""
    recording = tmp_path / "bad.jsonl"
    recording.write_text('{"type":"run_started","agent":"a"}\n{"type":"nonsense"}\n', encoding="utf-8")
    done = helikon("replay", str(recording))
    assert done.returncode == 2
    assert f"{recording}:2: not an event" in done.stderr


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    """`helikon --version` prints the version; the help lists every subcommand and never says "seed"."""
    version = helikon("--version")
    assert version.returncode == 0 and version.stdout.startswith("helikon ")
    for args in ((), ("run",), ("replay",), ("demo",)):
        with pytest.raises(SystemExit) as info:
            main([*args, "--help"])
        assert info.value.code == 0
        text = capsys.readouterr().out
        assert "usage: helikon" in text and "seed" not in text.lower()
        if not args:
            assert all(name in text for name in ("run", "replay", "demo"))


def test_demo_help_and_a_bad_demo_option() -> None:
    """`helikon demo --help` lists the scenarios without a stray `[]`; an unknown option or scenario shows the
    demo's own usage and exits 2."""
    text = helikon("demo", "--help").stdout
    assert "[]" not in text and "triage" in text
    bogus = helikon("demo", "--bogus")
    assert bogus.returncode == 2 and "usage: helikon demo" in bogus.stderr and "--bogus" in bogus.stderr
    unknown = helikon("demo", "nosuch")
    assert unknown.returncode == 2 and "unknown scenario 'nosuch'" in unknown.stderr


def test_demo_with_model_runs_every_agent_on_that_model() -> None:
    """`helikon demo --model openai:NAME --base-url URL` sends the scenarios' calls to that server instead of
    the simulator (here a closed port, so the run fails, exit 1); an unknown provider is a usage error."""
    done = helikon("demo", "triage", "--model", "openai:some-model", "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 1, done.stderr
    assert "failed: model failed (transport)" in done.stdout
    assert "ran on some-model" in done.stdout and "simulat" not in done.stdout
    unknown = helikon("demo", "--model", "foo:bar")
    assert unknown.returncode == 2 and "unknown provider 'foo'" in unknown.stderr


def test_a_reader_that_goes_away_ends_the_run_quietly() -> None:
    """`helikon run ... | head -0`: when stdout's reader has gone before the run writes, the write fails inside
    the run's nursery; helikon still exits 141 without a traceback."""
    process = subprocess.Popen(
        [sys.executable, "-m", "helikon_fc", "run", f"{AGENTS}:fan_out", "hi"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        cwd=ROOT,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # gone before the interpreter has even started
    errors = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) == 141, errors
    assert "Traceback" not in errors
