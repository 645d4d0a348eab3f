"""Evals on recordings: each case of the finance dataset recorded once, then scored offline on its recording.

An eval whose agents run on their cases' recordings (``Recording.model()``) scores exactly as the live eval did;
a changed agent fails the cases whose requests it changed, and the reason names the agent, the turn and the diff.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from helikon_fc import Handoff, LlmAgent, Model, function_tool
from helikon_fc.evals import Case, Dataset, EvalReport, load_dataset, run_eval
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import Recording, record

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "evals"
Build = Callable[[Model | None], LlmAgent[None]]


@pytest.fixture(scope="module")
def agents() -> Any:
    """The example's module of agents, imported from its file."""
    spec = importlib.util.spec_from_file_location("finance_agents_on_recordings", EXAMPLE / "finance_agents.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def dataset() -> Dataset:
    """The example's five cases."""
    return load_dataset(EXAMPLE / "finance.jsonl")


async def record_cases(build: Build, dataset: Dataset, folder: Path) -> dict[str, Recording]:
    """Each case's run of `build()` (on the simulator), recorded in a store, saved to a file and read back."""
    store = MemoryStore()
    recordings: dict[str, Recording] = {}
    for number, case in enumerate(dataset.cases):
        await record(build(None), case.input, store=store, run_id=f"case-{number}")
        path = folder / f"case-{number}.json"
        (await Recording.load(store, f"case-{number}")).save(path)
        recordings[case.name] = Recording.read(path)
    return recordings


def on_recordings(build: Build, recordings: dict[str, Recording]) -> Callable[[Case], LlmAgent[None]]:
    """The eval's agent factory: for each case, the agents of `build` on that case's recording."""

    def on_recording(case: Case) -> LlmAgent[None]:
        return build(recordings[case.name].model())

    return on_recording


def reasons(report: EvalReport) -> dict[str, list[str]]:
    """The failing cases' verdict reasons, by case."""
    return {
        case.name: [result.reason for rep in case.repetitions for result in rep.results if not result.passed]
        for case in report.cases
        if not case.passed
    }


async def test_an_eval_on_recordings_scores_exactly_as_the_live_eval(
    agents: Any, dataset: Dataset, tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """Same cases, outputs, verdicts, timings and score: the recordings stand in for the simulated models."""
    live = await run_eval(agents.build_before(), dataset)
    recordings = await record_cases(agents.build_before, dataset, tmp_path)
    replayed = await run_eval(on_recordings(agents.build_before, recordings), dataset)
    assert live.passed and live.score == 1.0
    assert replayed.cases == live.cases and replayed.score == live.score
    assert replayed.agent == "on_recording"  # a factory is named by its function; the live eval by its agent
    assert [rep.output for rep in replayed.cases[0].repetitions] == [dataset.cases[0].expected_output]
    assert (await run_eval(agents.build_before(), dataset)).cases == live.cases  # the live eval is deterministic


async def test_changed_instructions_fail_the_case_that_sends_them_with_the_diff(
    agents: Any, dataset: Dataset, tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """This week's investing specialist (shorter instructions) diverges from last week's recordings on the one case
    it serves; the reason names the agent and turn and shows the instructions' diff. The other cases still pass."""
    recordings = await record_cases(agents.build_before, dataset, tmp_path)
    report = await run_eval(on_recordings(agents.build, recordings), dataset)
    (reason, *same) = reasons(report)["first investment"]
    assert set(same) == {reason} and len(same) == 3  # the run failed, so every evaluator of the case failed with it
    assert "the replay diverged from the recording at agent 'investing specialist', turn 0" in reason
    assert "-  You are an investing specialist. Give concrete, prudent advice:" in reason
    assert "+  You are an investing specialist. Give concrete advice." in reason
    assert [case.name for case in report.cases if case.passed] == [case.name for case in dataset.cases[:4]]


@function_tool(name="get_budget")
def get_budget_by_month(category: str, month: str) -> int:
    """The monthly budget for a spending category, in dollars.

    Args:
        category: A spending category, e.g. "dining" or "groceries".
        month: The month, e.g. "2026-05".
    """
    return 0


def with_changed_schema(build: Build) -> Build:
    """`build`, whose budgeting specialist's ``get_budget`` takes a ``month`` as well."""

    def changed(model: Model | None) -> LlmAgent[None]:
        triage = build(model)
        budgeting, investing = triage.handoffs
        specialist = budgeting.resolve()
        assert isinstance(specialist, LlmAgent)
        tools = tuple(get_budget_by_month if tool.name == "get_budget" else tool for tool in specialist.tools)  # type: ignore[union-attr]
        return attrs.evolve(triage, handoffs=(Handoff.to(attrs.evolve(specialist, tools=tools)), investing))

    return changed


async def test_a_changed_tool_schema_fails_every_case_of_its_agent_with_the_schema_diff(
    agents: Any, dataset: Dataset, tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """A new required ``month`` in ``get_budget`` diverges at the budgeting specialist's first turn of each budgeting
    case; the reason shows the schema's new lines. The investing case, whose requests did not change, passes."""
    recordings = await record_cases(agents.build_before, dataset, tmp_path)
    report = await run_eval(on_recordings(with_changed_schema(agents.build_before), recordings), dataset)
    failed = reasons(report)
    assert sorted(failed) == sorted(case.name for case in dataset.cases[:4])
    for name, found in failed.items():
        assert "at agent 'budgeting specialist', turn 0" in found[0], name
        assert '+        "month": {' in found[0] and "@@" in found[0], name
    assert [case.name for case in report.cases if case.passed] == ["first investment"]
