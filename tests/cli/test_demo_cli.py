"""`helikon demo` and `python -m helikon_fc`: the first thing a new user runs."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import http_fixture
from helikon_fc.cli import main
from helikon_fc.cli.commands.demo import SCENARIO_KEYS
from helikon_fc.cli.demo import run_demo, scenario_keys
from helikon_fc.cli.render import describe_usage
from helikon_fc.cli.scenarios import saved_and_resumed
from helikon_fc.testing import simulate

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "HTTP", "HTTPS"))}
    env["NO_COLOR"] = "1"
    return env


def test_python_m_helikon_fc_demo_runs_every_scenario_offline() -> None:
    """`python -m helikon_fc demo` runs the eight finance scenarios on the simulator, with no key and no network,
    and exits 0."""
    done = subprocess.run(
        [sys.executable, "-m", "helikon_fc", "demo", "--fast"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert done.stderr == ""
    assert "8/8 scenarios ran as intended" in out
    for title in (
        "Triage with handoffs",
        "The support swarm",
        "The spending/income graph",
        "Research, then write",
        "Two checks at once",
        "A typed plan",
        "Saved and resumed",
        "Stop!",
    ):
        assert title in out
    assert not ANSI.search(out)


def test_the_console_script_is_installed_and_runs() -> None:
    """The `helikon` console script (pyproject [project.scripts]) runs the demo."""
    script = Path(sys.executable).with_name("helikon")
    if not script.exists():  # pragma: no cover - the package is always installed in the test venv
        pytest.fail(f"console script not installed next to {sys.executable}")
    done = subprocess.run(
        [str(script), "demo", "triage"], capture_output=True, text=True, timeout=120, env=_env(), check=False
    )
    assert done.returncode == 0, done.stderr
    assert "1/1 scenarios ran as intended" in done.stdout


def test_the_demo_shows_agents_handoffs_tool_calls_tokens_and_usage() -> None:
    """The rendering names the active agent, each handoff, each tool call with its arguments and result, the
    streamed answer, and the final usage."""
    out = io.StringIO()
    assert run_demo(out, fast=True) == 0
    text = out.getvalue()
    assert "=> handoff triage -> investing specialist" in text
    assert "active agent: investing specialist" in text
    assert '-> get_spending {"category":"dining"}' in text
    assert '<- {"budget":250.0,"spent":412.4}' in text
    assert "=> handoff budgeting -> investing" in text
    assert "investing specialist: Keep three months of expenses" in text
    assert "summary: October: $4,900 in" in text
    assert "writer: Keep your emergency fund" in text
    assert "done - simulated usage: 20 input + 10 output tokens, 2 model requests" in text


def test_summary_starts_after_both_graph_predecessors_in_the_demo() -> None:
    """In the graph scenario the summary node speaks only after spending and income both answered."""
    out = io.StringIO()
    run_demo(out, fast=True, only=["graph"])
    text = out.getvalue()
    assert text.index("summary: October") > text.index("spending: Spending:")
    assert text.index("summary: October") > text.index("income: Income:")


def test_colour_is_ansi_only_when_asked() -> None:
    """Plain text by default; ANSI colour codes when colour is on."""
    plain, coloured = io.StringIO(), io.StringIO()
    run_demo(plain, fast=True, only=["triage"])
    run_demo(coloured, fast=True, color=True, only=["triage"])
    assert not ANSI.search(plain.getvalue())
    assert ANSI.search(coloured.getvalue())
    assert ANSI.sub("", coloured.getvalue()) == plain.getvalue()


def test_main_selects_scenarios_and_rejects_unknown_ones(capsys: pytest.CaptureFixture[str]) -> None:
    """`helikon demo <scenario>` runs only those; an unknown scenario is a usage error (exit 2)."""
    assert scenario_keys() == ("triage", "swarm", "graph", "pipeline", "parallel", "typed", "resume", "cancel")
    assert scenario_keys() == SCENARIO_KEYS  # the parser's copy, kept so that building it imports no scenario
    assert main(["demo", "--fast", "--no-color", "pipeline"]) == 0
    out = capsys.readouterr().out
    assert "Research, then write" in out and "Triage" not in out
    with pytest.raises(SystemExit) as info:
        main(["demo", "nope"])
    assert info.value.code == 2


def test_main_without_a_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    """`helikon` with no command shows the usage and exits 2."""
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_a_closed_pipe_ends_the_demo_quietly() -> None:
    """`helikon demo | head` ends without a traceback when the reader stops reading."""
    demo = subprocess.Popen(
        [sys.executable, "-m", "helikon_fc", "demo", "--fast"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert demo.stdout is not None and demo.stderr is not None
    first = demo.stdout.readline()
    demo.stdout.close()
    stderr = demo.stderr.read().decode()
    demo.stderr.close()
    assert demo.wait(timeout=60) in (0, 141)
    assert first.startswith(b"== 1/8")
    assert "Traceback" not in stderr


def _lines_of(text: str, agent: str) -> list[int]:
    return [number for number, line in enumerate(text.splitlines()) if line.startswith(f"  {agent}: ")]


def test_concurrent_agents_each_show_their_text_on_one_line_in_the_demo() -> None:
    """In the parallel and graph scenarios the two concurrent agents stream at once, yet each one's answer is
    one line naming it (it was one word per line, the two agents alternating)."""
    for scenario, agents in (("parallel", ("rates", "subscriptions")), ("graph", ("spending", "income"))):
        out = io.StringIO()
        assert run_demo(out, fast=True, only=[scenario]) == 0
        text = out.getvalue()
        for agent in agents:
            assert len(_lines_of(text, agent)) == 1, text


def test_the_typed_scenario_shows_the_sub_agent_call_and_one_repair() -> None:
    """The typed plan calls its calculator agent as a tool, misses a field once, is repaired, and completes."""
    out = io.StringIO()
    assert run_demo(out, fast=True, only=["typed"]) == 0
    text = out.getvalue()
    assert '-> calculator {"input":"How long to save $5,000 at $400 a month?"}' in text
    assert text.index("structured output invalid; repair attempt 1") < text.index('"months_to_goal": 13}')
    assert "done - simulated usage" in text


def test_the_cancel_scenario_ends_cancelled_and_counts_as_intended() -> None:
    """The stop scenario is cancelled mid-tool: it ends with the cancellation, which is what it is meant to do."""
    out = io.StringIO()
    assert run_demo(out, fast=True, only=["cancel"]) == 0
    text = out.getvalue()
    assert text.index("(the user presses stop after 1.5 s)") < text.index("failed: stopped by the user")
    assert "1/1 scenarios ran as intended" in text


def test_the_resume_scenario_stops_after_the_tools_shows_the_records_and_finishes_without_them() -> None:
    """The recorded run stops once its two tool calls have answered; the store's records are listed (no line cut
    mid-word); the resumed run answers without calling a tool, with the answer and the usage of a whole run."""
    out = io.StringIO()
    assert run_demo(out, fast=True, only=["resume"]) == 0
    text = out.getvalue()
    stop = text.index("(the run stops here")
    before, after = text[:stop], text[stop:]
    assert before.count("-> get_balance") == 2 and "<- 1840.0" in before and "<- 6200.0" in before
    assert "stored: run 'demo-1', running, 7 records:" in after
    assert "run_opened > boundary: calling_model > model_answered > boundary: executing_tools >" in after
    assert "tool_finished x2 > boundary: calling_model" in after
    resumed = after[after.index("runner.resume('demo-1')") :]
    assert "-> get_balance" not in resumed and "<- " not in resumed  # no tool is called (or shown) again
    assert "advisor: Checking holds $1,840 and savings $6,200" in resumed
    assert "done - simulated usage: 20 input + 10 output tokens, 2 model requests" in resumed
    assert all(len(line) <= 120 for line in text.splitlines())


def test_the_resume_scenario_gives_the_uninterrupted_run_s_answer() -> None:
    """Stopped and resumed, the advisor ends with the answer and usage the same agent has when nothing stops it."""
    scenario = saved_and_resumed(None)
    whole = simulate(scenario.agent, scenario.question)
    assert whole.result is not None
    out = io.StringIO()
    run_demo(out, fast=True, only=["resume"])
    text = out.getvalue()
    assert f"advisor: {whole.result.final_output}" in text
    assert f"simulated usage: {describe_usage(whole.result.usage)}" in text


def test_the_resume_scenario_runs_on_a_real_server_that_answers_without_tools() -> None:
    """`helikon demo resume --model openai:NAME --base-url URL` runs the scenario over HTTP; a model that answers
    at once has nothing to stop or resume, which the demo says, and the scenario still ran as intended."""
    with http_fixture.serving() as base_url:
        model = ("--model", "openai:bench-model", "--base-url", base_url)
        done = subprocess.run(
            [sys.executable, "-m", "helikon_fc", "demo", "resume", *model],
            capture_output=True,
            text=True,
            timeout=120,
            env={**_env(), "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert f"advisor: {http_fixture.TEXT}" in done.stdout
    assert "(the run finished before calling a tool: nothing to resume)" in done.stdout
    assert "1/1 scenarios ran as intended - every agent above ran on bench-model." in done.stdout
