"""Recordings of a real model, replayed offline: the finance agents on SmolLM2-135M behind llama-cpp-python.

`examples/evals/recordings/` holds three runs recorded with ``helikon record`` against the llama-cpp-python
server of ``nox -s e2e_llama`` (the same agents as the example's, ``--model openai:smollm2-135m --base-url
...``). Nothing here needs that server: each run replays from its file, in virtual time, as it happened, and the
example's eval scores the real model's answers offline — the same verdicts on every run.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from helikon_fc.core import MessageOutput
from helikon_fc.evals import Case, EvalReport, load_dataset, run_eval
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import Recording, replay

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "evals"
RECORDINGS = sorted((EXAMPLE / "recordings").glob("*.json"))


@pytest.fixture(scope="module")
def agents() -> Any:
    spec = importlib.util.spec_from_file_location("finance_agents_on_llama", EXAMPLE / "finance_agents.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_three_recordings_of_the_real_model_are_checked_in() -> None:
    assert [path.stem for path in RECORDINGS] == ["dining_budget", "first_investment", "general_budgeting"]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda path: path.stem)
def test_a_real_model_s_run_replays_as_recorded(agents: Any, path: Path) -> None:
    """Same agents on the recording: the recorded events, output and usage, identically twice."""
    recording = Recording.read(path)
    first = replay(agents.build(recording.model()), recording, store=MemoryStore())
    second = replay(agents.build(recording.model()), recording, store=MemoryStore())
    assert first.error is None and first.result is not None
    assert first.events == recording.events
    assert first == second
    recorded_text = [event.item.text for event in recording.events if isinstance(event, MessageOutput)]
    assert first.result.final_output == recorded_text[-1]


def test_a_changed_agent_is_told_where_it_left_the_recording(agents: Any) -> None:
    """Other triage instructions: the first request differs, and the failure says so with a diff."""
    recording = Recording.read(EXAMPLE / "recordings" / "dining_budget.json")
    changed = agents.build(recording.model()).with_instructions("Answer in French.")
    simulation = replay(changed, recording)
    assert simulation.result is None and simulation.error is not None
    assert "triage" in str(simulation.error) and "turn 0" in str(simulation.error)


async def eval_on_recordings(agents: Any) -> EvalReport:
    by_case = {path.stem.replace("_", " "): Recording.read(path) for path in RECORDINGS}
    dataset = load_dataset(EXAMPLE / "finance.jsonl")
    recorded = attrs.evolve(dataset, cases=tuple(case for case in dataset.cases if case.name in by_case))

    def on_recording(case: Case) -> Any:
        return agents.build(by_case[case.name].model())

    return await run_eval(on_recording, recorded)


async def test_the_eval_scores_the_real_model_offline_and_the_same_every_time(
    agents: Any, autojump_clock: trio.testing.MockClock
) -> None:
    """The tiny model never hands off: every case fails, for the reasons its answers give, twice alike."""
    first = await eval_on_recordings(agents)
    second = await eval_on_recordings(agents)
    assert [case.name for case in first.cases] == ["dining budget", "general budgeting", "first investment"]
    assert not any(case.passed for case in first.cases)
    assert first.score == second.score and [c.passed for c in first.cases] == [c.passed for c in second.cases]
    outputs = [rep.output for case in first.cases for rep in case.repetitions]
    assert all(output for output in outputs)  # the model's own words were scored, not a replay failure
