"""`simulate` gives the same events every run, even when concurrent branches emit at the same instant."""

from __future__ import annotations

import pytest
from trio._core import _run as scheduler

from helikon_fc import LlmAgent, ParallelAgent
from helikon_fc.testing import ScriptedModel, reply, simulate
from helikon_fc.testing.simulation import deterministic_scheduling


def _fan_out() -> ParallelAgent[None]:
    """Four branches whose answers all arrive at virtual second 1, word by word."""
    fan: ParallelAgent[None] = ParallelAgent("fan", "four takes")
    for key in ("a", "b", "c", "d"):
        model = ScriptedModel([reply(f"{key} answers in several words", latency=1.0)])
        fan = fan.branch(key, LlmAgent(name=key, model=model))
    return fan


def test_concurrent_branches_interleave_identically_on_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same inputs, same events, same virtual time, every run — also when trio could order ties either way."""
    # Importing Hypothesis (as pytest does) already switches trio to its deterministic mode; an
    # application does not, so start from trio's normal, varying scheduler.
    monkeypatch.setattr(scheduler, "_ALLOW_DETERMINISTIC_SCHEDULING", False)
    runs = [simulate(_fan_out(), "go") for _ in range(12)]
    assert {run.events for run in runs} == {runs[0].events}
    assert {run.elapsed for run in runs} == {1.0}
    branch_starts = [event for event in runs[0].events if type(event).__name__ == "AgentUpdated"]
    assert len(branch_starts) > 4, "the branches' events interleave, so ties were really scheduled"


def test_deterministic_scheduling_restores_trio_afterwards() -> None:
    """The scheduler's random state and mode are put back when the simulation ends."""
    flag_before = scheduler._ALLOW_DETERMINISTIC_SCHEDULING
    state_before = scheduler._r.getstate()
    with deterministic_scheduling():
        assert scheduler._ALLOW_DETERMINISTIC_SCHEDULING is True
    assert scheduler._ALLOW_DETERMINISTIC_SCHEDULING == flag_before
    assert scheduler._r.getstate() == state_before
