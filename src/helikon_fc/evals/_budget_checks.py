"""Evaluators of what a run spent: `UsageBudget` (requests, tokens) and `CostBudget` (US dollars)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import attrs

from ..pricing import PriceTable
from ._case import Case, Verdict
from ._observed import CaseRun


def _limit(owner: str, field: str) -> Callable[[object, object, int | None], None]:
    def check(_: object, __: object, value: int | None) -> None:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{owner}: {field} must be a whole number from 0 up, or None, got {value!r}")

    return check


@attrs.frozen(kw_only=True)
class UsageBudget:
    """The run's usage (`RunResult.usage`, sub-runs included) stays within limits; `None` means no limit.

    Attributes:
        max_requests: model calls.
        max_input_tokens: input tokens.
        max_output_tokens: output tokens.
        max_total_tokens: input plus output tokens.
        name: the report's column.
    """

    max_requests: int | None = attrs.field(default=None, validator=_limit("UsageBudget", "max_requests"))
    max_input_tokens: int | None = attrs.field(default=None, validator=_limit("UsageBudget", "max_input_tokens"))
    max_output_tokens: int | None = attrs.field(default=None, validator=_limit("UsageBudget", "max_output_tokens"))
    max_total_tokens: int | None = attrs.field(default=None, validator=_limit("UsageBudget", "max_total_tokens"))
    name: str = "usage"

    def evaluate(self, case: Case, run: CaseRun) -> Verdict:
        """Pass when no limit is exceeded; the reason names each one that is."""
        usage = run.usage
        spent = {
            "requests": (usage.requests, self.max_requests),
            "input tokens": (usage.input_tokens, self.max_input_tokens),
            "output tokens": (usage.output_tokens, self.max_output_tokens),
            "total tokens": (usage.total_tokens, self.max_total_tokens),
        }
        over = [
            f"{what} {used} > {limit}" for what, (used, limit) in spent.items() if limit is not None and used > limit
        ]
        if over:
            return Verdict.of(False, "over budget: " + ", ".join(over))
        within = [f"{what} {used} <= {limit}" for what, (used, limit) in spent.items() if limit is not None]
        return Verdict.of(True, "within budget: " + (", ".join(within) or "no limits set"))


def _dollars(value: Decimal | int | float | str) -> Decimal:
    try:
        amount = Decimal(str(value)) if not isinstance(value, bool) else Decimal("NaN")
    except ArithmeticError:  # decimal.InvalidOperation: not a number
        amount = Decimal("NaN")
    if not amount.is_finite() or amount < 0:
        raise ValueError(f"CostBudget: max_usd must be a number of dollars from 0 up, got {value!r}")
    return amount


@attrs.frozen(kw_only=True)
class CostBudget:
    """The run cost at most `max_usd` US dollars (`RunResult.cost`, or at `prices`).

    A run whose cost is unknown (a model with no price, a call with no usage report) fails: the reason
    names the unpriced models.

    Attributes:
        max_usd: the budget in dollars (a `Decimal`, or a number or string that is one).
        prices: the price table, or `None` for `helikon_fc.pricing.default_prices()`.
        name: the report's column.
    """

    max_usd: Decimal = attrs.field(converter=_dollars)
    prices: PriceTable | None = None
    name: str = "cost"

    def evaluate(self, case: Case, run: CaseRun) -> Verdict:
        """Pass when the run's cost is known and within the budget."""
        if run.result is None:
            return Verdict.of(False, "the run has no result to price")
        cost = run.result.cost if self.prices is None else run.result.cost_with(self.prices)
        if cost.total is None:
            unpriced = ", ".join(cost.unpriced) or "calls without a usage report"
            return Verdict.of(False, f"the cost is unknown: no price for {unpriced}")
        if cost.total > self.max_usd:
            return Verdict.of(False, f"cost ${cost.total} > budget ${self.max_usd}")
        return Verdict.of(True, f"cost ${cost.total} <= budget ${self.max_usd}")
