"""`UsageBudget` and `CostBudget`: within limits passes, over fails naming the limit; an unknown cost fails."""

from __future__ import annotations

from decimal import Decimal

import pytest
from tests.evals.agents import CASE, budget_agent

from helikon_fc.evals import CaseRun, CostBudget, UsageBudget
from helikon_fc.pricing import Price, Prices
from helikon_fc.testing import simulate


def _run() -> CaseRun:
    simulation = simulate(budget_agent(), "budget for dining")
    assert simulation.result is not None
    return CaseRun(
        output=simulation.result.final_output, error=None, usage=simulation.result.usage, result=simulation.result
    )


def test_usage_within_and_over_budget() -> None:
    """Two model calls of 10 + 5 tokens each: within 2 requests, over 1 request and over 25 total tokens, each named."""
    run = _run()
    assert UsageBudget(max_requests=2, max_total_tokens=30).evaluate(CASE, run).passed
    verdict = UsageBudget(max_requests=1, max_total_tokens=25).evaluate(CASE, run)
    assert not verdict.passed and verdict.reason == "over budget: requests 2 > 1, total tokens 30 > 25"


def test_a_negative_limit_is_refused() -> None:
    """A limit below 0 is refused when the evaluator is built, naming the field."""
    with pytest.raises(ValueError, match="UsageBudget: max_requests must be a whole number from 0 up"):
        UsageBudget(max_requests=-1)


def test_cost_within_and_over_budget_at_given_prices() -> None:
    """At $1 per million input and $2 per million output tokens the run costs $0.00004: within $0.0001, not $0.00001."""
    run = _run()
    prices = Prices({"budget-sim": Price(input="1", output="2")})
    assert CostBudget(max_usd="0.0001", prices=prices).evaluate(CASE, run).passed
    verdict = CostBudget(max_usd=Decimal("0.00001"), prices=prices).evaluate(CASE, run)
    assert not verdict.passed and verdict.reason.startswith("cost $0.00004") and "> budget $0.00001" in verdict.reason


def test_an_unknown_cost_fails_naming_the_unpriced_model() -> None:
    """A model with no price makes the cost unknown: a failure naming the model, never a pass."""
    verdict = CostBudget(max_usd=1, prices=Prices({})).evaluate(CASE, _run())
    assert not verdict.passed and verdict.reason == "the cost is unknown: no price for budget-sim"
