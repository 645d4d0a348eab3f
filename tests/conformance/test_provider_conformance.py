"""Every model subject passes every scenario it does not decline: no rule broken, no floor missed."""

from __future__ import annotations

import pytest
from tests.conformance.conformance_subjects import SUBJECTS, Subject
from tests.conformance.stream_rules import Ending, Scenario, floor_failures, record, violations
from tests.openai.openai_wire import WireServer, wait_for

DECLINES: dict[str, frozenset[Scenario]] = {
    "openai.chat": frozenset(),
    "openai.responses": frozenset({Scenario.FRAGMENTED_TOOL_NAME}),
    "openai.chat.whole": frozenset(Scenario)
    - {Scenario.CLEAN_STOP, Scenario.TOOL_CALL_CLEAN_STOP, Scenario.NO_USAGE_REPORTED},
    "gemini": frozenset({Scenario.FRAGMENTED_TOOL_NAME}),
    "anthropic": frozenset({Scenario.FRAGMENTED_TOOL_NAME}),
    "scripted": frozenset(
        {Scenario.TRUNCATED_AFTER_STOP_REASON, Scenario.ERROR_AFTER_STOP_REASON, Scenario.FRAGMENTED_TOOL_NAME}
    ),
}
"""The pinned declines: a subject that newly declines, or newly covers, a scenario must update this table."""

CASES = [
    pytest.param(subject, scenario, id=f"{subject.name}-{scenario.name.lower()}")
    for subject in SUBJECTS
    for scenario in Scenario
    if scenario not in DECLINES[subject.name]
]


@pytest.mark.parametrize("subject", SUBJECTS, ids=lambda subject: subject.name)
def test_declines_match_the_pinned_table(subject: Subject) -> None:
    """A subject declines exactly the pinned scenarios, each with a reason (checked in both directions)."""
    declined = subject.declines()
    assert frozenset(declined) == DECLINES[subject.name]
    assert all(reason.strip() for reason in declined.values())


@pytest.mark.parametrize(("subject", "scenario"), CASES)
async def test_subject_conforms(subject: Subject, scenario: Scenario, wire: WireServer) -> None:
    """The recorded stream breaks no rule and clears every anti-vacuity floor."""
    async with subject.run(scenario, wire) as run:
        trace = await record(run.model, run.request, cancel=run.cancel)
    assert violations(trace, scenario) == []
    assert floor_failures(trace, scenario) == []
    if scenario.ending is Ending.CANCELLED and run.exchange is not None:
        await wait_for(run.exchange.disconnected)


def test_every_subject_covers_most_scenarios() -> None:
    """The suite is not vacuous: each streaming subject runs at least seven of the ten scenarios (the whole-body
    subject, which has no part-way, the three it can express)."""
    for subject in SUBJECTS:
        covered = len(Scenario) - len(DECLINES[subject.name])
        assert covered >= (3 if subject.name == "openai.chat.whole" else 7)
