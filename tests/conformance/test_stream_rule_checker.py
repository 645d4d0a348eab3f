"""The conformance checker itself: each rule is caught, in the fixed order of precedence, and floors bite."""

from __future__ import annotations

import pytest
from tests.conformance.stream_rules import Rule, Scenario, Trace, floor_failures, violations

from helikon_fc.core import (
    FinishReason,
    ModelFailureKind,
    ModelFinish,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    Usage,
)
from helikon_fc.models import ModelError

TEXT = ModelTextDelta("Hi")
USAGE = ModelUsage(Usage(input_tokens=1, output_tokens=1))
STOP = ModelFinish(FinishReason.STOP)
BOOM = ModelError(ModelFailureKind.UNAVAILABLE, "boom")


def rules(trace: Trace, scenario: Scenario) -> list[Rule]:
    return [violation.rule for violation in violations(trace, scenario)]


def test_a_conforming_clean_stop_has_no_violation() -> None:
    """Text, usage, then one finish: nothing to report."""
    assert rules(Trace(events=(TEXT, USAGE, STOP)), Scenario.CLEAN_STOP) == []


@pytest.mark.parametrize(
    ("events", "error", "scenario", "expected"),
    [
        ((TEXT, STOP, STOP), None, Scenario.CLEAN_STOP, [Rule.DUPLICATE_FINISH]),
        ((TEXT, STOP, USAGE), None, Scenario.CLEAN_STOP, [Rule.USAGE_AFTER_FINISH]),
        ((STOP, TEXT), None, Scenario.CLEAN_STOP, [Rule.EVENT_AFTER_FINISH]),
        ((TEXT, STOP), BOOM, Scenario.CLEAN_STOP, [Rule.EVENT_AFTER_FINISH]),
        ((TEXT, STOP), None, Scenario.CANCEL_MID_GENERATION, [Rule.FINISH_ON_CANCEL]),
        ((TEXT, STOP), None, Scenario.ERROR_MID_GENERATION, [Rule.FINISH_AFTER_ERROR]),
        ((TEXT, STOP), None, Scenario.TRUNCATED_MID_GENERATION, [Rule.FINISH_ON_TRUNCATION]),
        ((TEXT,), None, Scenario.TRUNCATED_AFTER_STOP_REASON, [Rule.MISSING_FINISH]),
        (
            (ModelToolCallDelta("c1", "get_weather", "{}"), ModelToolCallDelta("c1", "get_weather", ""), STOP),
            None,
            Scenario.TOOL_CALL_CLEAN_STOP,
            [Rule.TOOL_NAME_NOT_EXACTLY_ONCE],
        ),
        (
            (ModelToolCallDelta("c1", None, "{}"), STOP),
            None,
            Scenario.TOOL_CALL_CLEAN_STOP,
            [Rule.TOOL_NAME_NOT_EXACTLY_ONCE],
        ),
    ],
)
def test_each_rule_is_caught(
    events: tuple[object, ...], error: BaseException | None, scenario: Scenario, expected: list[Rule]
) -> None:
    """A trace breaking exactly one rule is reported with exactly that rule."""
    trace = Trace(events=events, error=error)  # type: ignore[arg-type]
    assert rules(trace, scenario) == expected


def test_violations_come_in_precedence_order() -> None:
    """A trace breaking every finish rule at once lists them duplicate, usage, event, then the scenario's rule."""
    trace = Trace(events=(ModelToolCallDelta("c1", None, "{}"), STOP, USAGE, TEXT, STOP), error=BOOM, cancelled=True)
    assert rules(trace, Scenario.CANCEL_MID_GENERATION) == [
        Rule.DUPLICATE_FINISH,
        Rule.USAGE_AFTER_FINISH,
        Rule.EVENT_AFTER_FINISH,
        Rule.FINISH_ON_CANCEL,
        Rule.TOOL_NAME_NOT_EXACTLY_ONCE,
    ]
    assert sorted(rules(trace, Scenario.CANCEL_MID_GENERATION)) == rules(trace, Scenario.CANCEL_MID_GENERATION)


def test_missing_finish_precedes_tool_name_rule() -> None:
    """No finish and an unnamed call: MISSING_FINISH is reported before TOOL_NAME_NOT_EXACTLY_ONCE."""
    trace = Trace(events=(ModelToolCallDelta("c1", None, "{}"),))
    assert rules(trace, Scenario.TOOL_CALL_CLEAN_STOP) == [Rule.MISSING_FINISH, Rule.TOOL_NAME_NOT_EXACTLY_ONCE]


def test_floors_reject_an_empty_stream() -> None:
    """A subject cannot pass a text scenario by producing nothing but a finish."""
    assert floor_failures(Trace(events=(STOP,)), Scenario.CLEAN_STOP) == ["a text scenario produced no text delta"]


def test_floors_require_the_fixture_tool_name() -> None:
    """A tool scenario needs a delta naming the fixture's tool."""
    trace = Trace(events=(ModelToolCallDelta("c1", "other", "{}"), ModelFinish(FinishReason.TOOL_CALLS)))
    assert floor_failures(trace, Scenario.TOOL_CALL_CLEAN_STOP) == ["no tool-call delta named 'get_weather'"]


def test_floors_check_the_declared_finish_reason() -> None:
    """The first finish must carry the reason the fixture declares."""
    failures = floor_failures(Trace(events=(TEXT, ModelFinish(FinishReason.LENGTH))), Scenario.CLEAN_STOP)
    assert failures == ["finish reason FinishReason.LENGTH differs from the declared FinishReason.STOP"]


def test_floors_require_usage_before_a_cancel_after_the_stop_reason() -> None:
    """Cancelling after the stop reason only proves something if the usage was seen."""
    trace = Trace(events=(TEXT,), cancelled=True, fired_while_parked=True)
    assert floor_failures(trace, Scenario.CANCEL_AFTER_STOP_REASON) == [
        "a cancel after the stop reason must have seen the usage first"
    ]


def test_floors_require_the_cancel_to_fire_while_parked() -> None:
    """A cancellation that fired after the server let go proves nothing about cancellation."""
    late = Trace(events=(TEXT,), cancelled=True, fired_while_parked=False)
    assert floor_failures(late, Scenario.CANCEL_MID_GENERATION)
    assert floor_failures(Trace(events=(TEXT,), cancelled=False), Scenario.CANCEL_MID_GENERATION)


def test_floors_require_a_model_error_in_error_scenarios() -> None:
    """An error scenario must surface a typed ModelError, not a bare exception or nothing."""
    assert floor_failures(Trace(events=(TEXT,), error=RuntimeError("x")), Scenario.ERROR_MID_GENERATION)
    assert floor_failures(Trace(events=(TEXT,)), Scenario.ERROR_MID_GENERATION)
    assert floor_failures(Trace(events=(TEXT,), error=BOOM), Scenario.ERROR_MID_GENERATION) == []


def test_floors_allow_only_a_transport_error_on_truncation() -> None:
    """A truncation may end quietly or with a TRANSPORT error, nothing else."""
    transport = ModelError(ModelFailureKind.TRANSPORT, "cut")
    assert floor_failures(Trace(events=(TEXT,), error=transport), Scenario.TRUNCATED_MID_GENERATION) == []
    assert floor_failures(Trace(events=(TEXT,)), Scenario.TRUNCATED_MID_GENERATION) == []
    assert floor_failures(Trace(events=(TEXT,), error=BOOM), Scenario.TRUNCATED_MID_GENERATION)
