"""Law: usage is additive — a run's usage is the field-wise sum of every model call's usage, and its `requests`
is the number of model calls, whatever the provider reported."""

from __future__ import annotations

from functools import reduce

import attrs
from hypothesis import given
from properties.reference import Answer, drive
from properties.strategies import scenario_ctxs, scripts, usages

from helikon_fc.core import ApplyingHandoff, Done, Failed, RunCompleted, TransitionCtx, Usage

CTXS = scenario_ctxs()
SCRIPTS = scripts()
USAGES = usages()


@given(ctx=CTXS, script=SCRIPTS)
def test_run_usage_is_the_sum_of_model_call_usages(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """The final state's usage equals the sum of the answered calls' usages with requests = number of model calls."""
    trace = drive(ctx, script)
    spent = reduce(Usage.__add__, (attrs.evolve(r.usage, requests=0) for r in trace.responses), Usage())
    expected = attrs.evolve(spent, requests=len(trace.requests))
    assert isinstance(trace.final_state, Done | Failed | ApplyingHandoff)
    assert trace.final_state.usage == expected
    for event in trace.events:
        if isinstance(event, RunCompleted):
            assert event.usage == expected


@given(a=USAGES, b=USAGES, c=USAGES)
def test_usage_addition_is_a_commutative_monoid(a: Usage, b: Usage, c: Usage) -> None:
    """Usage addition is associative and commutative, with Usage() as its identity."""
    assert (a + b) + c == a + (b + c)
    assert a + b == b + a
    assert a + Usage() == a
    assert (a + b).total_tokens == a.total_tokens + b.total_tokens


@given(a=USAGES, b=USAGES)
def test_unreported_requests_add_and_a_sum_is_reported_only_if_both_are(a: Usage, b: Usage) -> None:
    """Unreported requests add like any count, so a total is fully reported exactly when every part is."""
    assert (a + b).unreported_requests == a.unreported_requests + b.unreported_requests
    assert (a + b).reported == (a.reported and b.reported)
