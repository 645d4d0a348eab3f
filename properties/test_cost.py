"""The laws of a run's cost: additive over agents and models, never negative, monotone in the tokens, and no
number exactly when some part cannot be priced."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, strategies as st

from helikon_fc.core import ModelShare, Usage
from helikon_fc.pricing import Price, Prices, run_cost

PRICED = ("m1", "m2", "m3")
"""The models of `TABLE`; ``"free"`` and ``None`` (a model not known) have no price."""

rates = st.decimals(min_value=0, max_value=1000, places=4, allow_nan=False, allow_infinity=False)
prices = st.builds(Price, rates, rates, rates, rates)
tables = st.fixed_dictionaries(dict.fromkeys(PRICED, prices))
tokens = st.integers(min_value=0, max_value=10**9)


@st.composite
def whole_usages(draw: st.DrawFn, unreported: st.SearchStrategy[int] | None = None) -> Usage:
    """A usage as a provider reports it: cached input a part of the input, reasoning a part of the output."""
    fresh, cached, plain, reasoning = draw(tokens), draw(tokens), draw(tokens), draw(tokens)
    return Usage(
        input_tokens=fresh + cached,
        cached_input_tokens=cached,
        output_tokens=plain + reasoning,
        reasoning_tokens=reasoning,
        requests=draw(st.integers(min_value=1, max_value=5)),
        unreported_requests=draw(unreported) if unreported is not None else 0,
    )


agents = st.sampled_from(["a", "b", "c"])
priced_shares = st.lists(st.builds(ModelShare, agents, st.sampled_from(PRICED), whole_usages()), max_size=6)
any_shares = st.lists(
    st.builds(
        ModelShare,
        agents,
        st.sampled_from((*PRICED, "free", None)),
        whole_usages(st.sampled_from([0, 0, 1])),
    ),
    max_size=6,
)


@given(tables, priced_shares, priced_shares)
def test_cost_is_additive_over_agents_and_models(
    table: dict[str, Price], first: list[ModelShare], then: list[ModelShare]
) -> None:
    """The total is the sum of the agents' costs, each the sum of its models'; the cost of two runs' usage is the
    sum of their costs."""
    cost = run_cost(first, Prices(table))
    assert cost.total == sum((agent.cost or Decimal(0) for agent in cost.by_agent), Decimal(0))
    for agent in cost.by_agent:
        assert agent.cost == sum((part.cost or Decimal(0) for part in agent.models), Decimal(0))
    assert cost.total == sum((table[share.model or ""].cost(share.usage) for share in first), Decimal(0))
    both = run_cost(first + then, Prices(table)).total
    assert both == (cost.total or 0) + (run_cost(then, Prices(table)).total or 0)


@given(tables, priced_shares)
def test_cost_is_never_negative(table: dict[str, Price], shares: list[ModelShare]) -> None:
    """No part of a cost is below zero."""
    cost = run_cost(shares, Prices(table))
    assert cost.total is not None and cost.total >= 0
    assert all(part.cost is not None and part.cost >= 0 for agent in cost.by_agent for part in agent.models)


@given(prices, whole_usages(), whole_usages())
def test_cost_is_monotone_in_each_token_count(price: Price, usage: Usage, more: Usage) -> None:
    """Tokens of any kind added to a usage never lower its cost (a cached token is still an input token)."""
    assert price.cost(usage + more) >= price.cost(usage)
    for extra in (
        Usage(input_tokens=1),
        Usage(output_tokens=1),
        Usage(input_tokens=1, cached_input_tokens=1),
        Usage(output_tokens=1, reasoning_tokens=1),
    ):
        assert price.cost(usage + extra) >= price.cost(usage)


@given(tables, any_shares)
def test_no_number_exactly_when_some_model_is_unpriced_or_usage_unreported(
    table: dict[str, Price], shares: list[ModelShare]
) -> None:
    """The total is `None` exactly when a share's model has no price or its usage was not all reported; an
    agent's cost likewise over its own shares; the unpriced models are named."""
    cost = run_cost(shares, Prices(table))

    def unpriceable(share: ModelShare) -> bool:
        return share.model not in table or not share.usage.reported

    assert (cost.total is None) == any(unpriceable(share) for share in shares)
    for agent in cost.by_agent:
        own = [share for share in shares if share.agent == agent.agent]
        assert (agent.cost is None) == any(unpriceable(share) for share in own)
    assert cost.unpriced == tuple(sorted({share.model or "?" for share in shares if share.model not in table}))
