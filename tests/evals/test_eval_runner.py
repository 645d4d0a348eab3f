"""`run_eval`: concurrency under a limiter, results in dataset order, repetitions that disagree, timeouts, failures
of the agent as failures of the case, every run recorded in a store, progress lines."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from tests.evals.agents import budget_agent, failing_agent, question, triage_agent

from helikon_fc import LlmAgent, ModelRequest
from helikon_fc.cli import main
from helikon_fc.evals import Case, Contains, Dataset, ExpectedCall, format_table, run_eval, run_eval_sync
from helikon_fc.testing import FunctionModel, ScriptedModel, ScriptedTurn, reply

CATEGORIES = ("dining", "travel", "books", "rent", "gym", "fuel")


def _dataset(categories: tuple[str, ...] = CATEGORIES) -> Dataset:
    cases = [
        Case(
            name=name,
            input=f"budget for {name}",
            expected_calls=[ExpectedCall(name="lookup", arguments={"category": name})],
        )
        for name in categories
    ]
    return Dataset(cases=cases, evaluators=[Contains(text="$")])


@pytest.mark.parametrize(("concurrency", "seconds"), [(1, 12.0), (2, 6.0), (6, 2.0)])
async def test_runs_go_concurrently_up_to_the_limit(
    concurrency: int, seconds: float, autojump_clock: trio.testing.MockClock
) -> None:
    """Six cases of two 1-second model calls: 12 virtual seconds one at a time, 6 two at a time, 2 all at once."""
    started = trio.current_time()
    report = await run_eval(budget_agent(latency=lambda _: 1.0), _dataset(), concurrency=concurrency)
    assert trio.current_time() - started == pytest.approx(seconds)
    assert report.passed and len(report.cases) == 6


async def test_the_report_keeps_the_dataset_s_order_whatever_order_runs_finish_in(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Cases that finish last-first are still reported in the dataset's order."""
    delays = {name: float(len(CATEGORIES) - index) for index, name in enumerate(CATEGORIES)}
    out = io.StringIO()
    report = await run_eval(
        budget_agent(latency=lambda q: delays[q.split()[-1]]), _dataset(), concurrency=6, progress=out
    )
    assert [case.name for case in report.cases] == list(CATEGORIES)
    finished = [line.split()[2] for line in out.getvalue().splitlines()]
    assert finished == list(reversed(CATEGORIES))
    assert out.getvalue().splitlines()[0] == "eval [1/6] fuel #0 pass"


async def test_repetitions_that_disagree_are_named(autojump_clock: trio.testing.MockClock) -> None:
    """A case run three times whose second run answers wrong: pass rate 2/3, that repetition disagrees, the case
    fails at the default pass rate 1 and passes at 0.6."""
    runs = 0

    def flaky(request: ModelRequest) -> ScriptedTurn:
        nonlocal runs
        runs += 1
        return reply("right" if runs != 2 else "wrong")

    agent: LlmAgent[None] = LlmAgent(name="flaky", model=FunctionModel(flaky), instructions="Answer.")
    dataset = Dataset(cases=[Case(name="c", input="q", expected_output="right")])
    strict = await run_eval(agent, dataset, repeat=3, concurrency=1)
    case = strict.cases[0]
    wrong = [rep.index for rep in case.repetitions if rep.output == "wrong"]
    assert len(wrong) == 1 and case.disagreeing == tuple(wrong)
    assert case.pass_rate == pytest.approx(2 / 3) and not case.passed
    assert case.scores == {"exact": pytest.approx(2 / 3)} and case.unstable == ("exact",)
    assert f"c: failed (repetitions {wrong} disagree; unstable: exact)" in format_table(strict)
    runs = 0
    lenient = await run_eval(agent, dataset, repeat=3, concurrency=1, min_pass_rate=0.6)
    assert lenient.cases[0].passed and lenient.passed


async def test_a_run_past_its_timeout_fails_its_case_only(autojump_clock: trio.testing.MockClock) -> None:
    """A case whose model takes 100 s fails after the 5-second timeout, saying so; the other cases pass."""
    agent = budget_agent(latency=lambda q: 100.0 if "rent" in q else 1.0)
    started = trio.current_time()
    report = await run_eval(agent, _dataset(("dining", "rent", "travel")), timeout=5, concurrency=3)
    assert trio.current_time() - started == pytest.approx(5.0)
    assert [case.passed for case in report.cases] == [True, False, True]
    rent = report.cases[1].repetitions[0]
    assert rent.error == "run timed out after 5 s" and rent.elapsed == pytest.approx(5.0)
    assert {result.evaluator: result.score for result in rent.results} == {"contains": 0.0, "tools": 0.0}


async def test_failures_of_the_agent_are_failures_of_the_case(autojump_clock: trio.testing.MockClock) -> None:
    """A model that fails, a factory that raises and a factory returning no agent: three failed cases with their
    reasons, and a report (the eval does not crash)."""

    def factory(case: Case) -> LlmAgent[None]:
        if case.name == "raises":
            raise RuntimeError("no agent today")
        if case.name == "junk":
            return "an agent"  # type: ignore[return-value]
        return failing_agent("the model is down")

    dataset = Dataset(cases=[Case(name=name, input="q") for name in ("model", "raises", "junk")])
    report = await run_eval(factory, dataset)
    errors = [case.repetitions[0].error for case in report.cases]
    assert errors[0] is not None and "the model is down" in errors[0]
    assert errors[1] == "RuntimeError: no agent today"
    assert errors[2] is not None and errors[2].startswith("TypeError: the agent factory returned 'an agent' (str)")
    assert report.failed == report.cases and report.score == 0.0


async def test_a_factory_builds_an_agent_per_case(autojump_clock: trio.testing.MockClock) -> None:
    """With a factory each case can have its own `ScriptedModel`: concurrent cases do not share a script."""

    def factory(case: Case) -> LlmAgent[None]:
        return LlmAgent(name="echo", model=ScriptedModel([reply(f"echo {case.input}")]), instructions="Echo.")

    dataset = Dataset(cases=[Case(name=str(n), input=str(n), expected_output=f"echo {n}") for n in range(5)])
    report = await run_eval(factory, dataset, concurrency=5, repeat=2)
    assert report.passed, report.failed


def test_every_run_is_recorded_and_helikon_runs_show_renders_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With a SQLite store every run (the handoff's sub-run too) is recorded under its repetition's run id, and
    `helikon runs show` renders the run: the handoff, the specialist's answer."""
    store = tmp_path / "evals.db"
    dataset = Dataset(cases=[Case(name="c", input="how to invest?", expected_agents=["triage", "specialist"])])
    report = run_eval_sync(triage_agent(), dataset, virtual_time=True, repeat=2, store=store)
    assert report.passed and report.store == str(store)
    run_ids = [rep.run_id for rep in report.cases[0].repetitions]
    assert all(run_ids) and len(set(run_ids)) == 2
    assert main(["runs", "show", str(run_ids[0]), "--store", str(store), "--no-color"]) == 0
    shown = capsys.readouterr().out
    assert "handoff triage -> specialist" in shown and "specialist: answer to how to invest?" in shown
    assert main(["runs", "list", "--store", str(store), "--json"]) == 0
    listed = capsys.readouterr().out
    assert listed.count(f'"{run_ids[0]}/handoff:specialist"') == 1


def test_a_whole_eval_in_virtual_time_costs_no_real_time() -> None:
    """Twenty cases whose model calls take 30 virtual seconds each: 1,200 virtual seconds, a fraction of one real."""
    import time

    names = tuple(f"c{n}" for n in range(20))
    started = time.perf_counter()
    report = run_eval_sync(budget_agent(latency=lambda _: 30.0), _dataset(names), virtual_time=True, timeout=120)
    assert report.passed
    assert sum(rep.elapsed for case in report.cases for rep in case.repetitions) == pytest.approx(20 * 60.0)
    assert time.perf_counter() - started < 10.0  # 1,200 virtual seconds; real time only for the work itself


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"repeat": 0}, "run_eval: repeat must be a whole number from 1 up, got 0 (int)"),
        ({"concurrency": "2"}, "run_eval: concurrency must be a whole number from 1 up, got '2' (str)"),
        ({"timeout": -1}, "run_eval: timeout must be a positive number of seconds or None, got -1 (int)"),
        ({"min_pass_rate": 2}, "run_eval: min_pass_rate must be a number from 0 to 1, got 2 (int)"),
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(options: dict[str, Any], message: str) -> None:
    """Each out-of-range argument is named, with what it got and what is allowed."""
    with pytest.raises((TypeError, ValueError)) as info:
        run_eval_sync(budget_agent(), _dataset(), **options)
    assert str(info.value) == message


def test_a_dataset_that_is_not_a_dataset_is_refused() -> None:
    """Passing a list of cases instead of a `Dataset` says what to pass."""
    with pytest.raises(TypeError, match=r"run_eval: dataset must be a Dataset \(see load_dataset\), got \[\]"):
        run_eval_sync(budget_agent(), [])  # type: ignore[arg-type]


async def test_a_run_that_waits_for_approval_fails_its_case(autojump_clock: trio.testing.MockClock) -> None:
    """With the built-in guards a destructive command pauses the run for approval; an eval has no approver, so the
    case fails saying which tool waits. The context factory gives each run its `RunContext` (its permissions)."""
    from helikon_fc import Permissions, RunContext, function_tool

    @function_tool(name="Bash")
    def bash(command: str) -> str:
        """Run a command.

        Args:
            command: the command line.
        """
        return "ok"

    def turn(request: ModelRequest) -> ScriptedTurn:
        from helikon_fc.testing import call, call_tools

        return call_tools(call("Bash", command=question(request)))

    agent: LlmAgent[None] = LlmAgent(name="ops", model=FunctionModel(turn), instructions="Run it.", tools=[bash])
    dataset = Dataset(cases=[Case(name="wipe", input="rm -rf /")])
    report = await run_eval(
        agent, dataset, context=lambda case: RunContext.ephemeral(None).with_permissions(Permissions())
    )
    assert report.cases[0].repetitions[0].error == "the run paused for approval of Bash"
    assert not report.passed
