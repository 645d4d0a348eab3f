"""Acceptance of issue 27 §2 from Python: a failing case's recorded run replays offline to the same answer,
and the pytest helper's failure message says which case failed and why."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from tests.testing.recorded_agents import build, scripted

from helikon_fc.evals import Case, Dataset, assert_dataset, run_eval_sync
from helikon_fc.stores import SQLiteStore
from helikon_fc.testing import Recording, replay

QUESTION = "What are the fees of basic?"


def test_a_failing_case_s_run_in_the_eval_store_replays_to_the_same_answer(tmp_path: Path) -> None:
    """An eval with a SQLite store: the failing repetition's run id loads as a `Recording` (every agent of the
    nested run), and replayed offline on that recording the system gives the output the eval scored."""
    store = tmp_path / "evals.db"
    dataset = Dataset(cases=[Case(name="fees", input=QUESTION, expected_output="something else")])
    report = run_eval_sync(lambda case: build(scripted()), dataset, virtual_time=True, store=store)
    failed = report.cases[0].repetitions[0]
    assert not failed.passed and failed.run_id is not None
    run_id = failed.run_id

    async def load() -> Recording:
        return await Recording.load(SQLiteStore(str(store)), run_id)

    recording = trio.run(load)
    assert sorted(run.agent for run in recording.runs) == ["billing", "desk", "researcher", "summary", "triage"]
    simulation = replay(build(recording.model()), recording)
    assert simulation.error is None, simulation.error
    assert simulation.result is not None and simulation.result.final_output == failed.output
    assert simulation.elapsed == failed.elapsed


def test_the_pytest_helper_names_the_failing_case_and_its_reason() -> None:
    """`assert_dataset` raises AssertionError whose message names the eval, the failing case, the evaluator
    and the reason (both texts), so a CI log says what broke without rerunning."""
    dataset = Dataset(
        name="fees",
        cases=[
            Case(name="good", input=QUESTION, expected_output=None),
            Case(name="bad", input=QUESTION, expected_output="Fees are zero."),
        ],
    )
    with pytest.raises(AssertionError) as info:
        assert_dataset(lambda case: build(scripted()), dataset)
    message = str(info.value)
    assert message.splitlines()[0].endswith("on fees: 1 case(s) failed: bad")
    assert "exact: expected 'Fees are zero.', got" in message and "2% per trade" in message
    with pytest.raises(AssertionError, match=r"score 0\.\d+ < min_score 0\.99"):
        assert_dataset(lambda case: build(scripted()), dataset, min_score=0.99)
