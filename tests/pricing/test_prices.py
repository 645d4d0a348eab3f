"""`helikon_fc.pricing`: rates, the cost of a usage at them, and the price tables."""

from __future__ import annotations

import sys
from decimal import Decimal

import pytest

from helikon_fc.core import ModelShare, Usage
from helikon_fc.pricing import (
    AgentCost,
    GenaiPrices,
    ModelCost,
    Price,
    Prices,
    RunCost,
    default_prices,
    format_cost,
    run_cost,
)

RATES = Price(input="2", output="8", cached_input="0.5", reasoning="16")
TABLE = Prices({"m": RATES, "cheap": Price(input=1, output=1)})


def test_each_kind_of_token_is_priced_at_its_own_rate() -> None:
    """1M fresh input, 1M cached, 1M plain output and 1M reasoning cost 2 + 0.5 + 8 + 16 dollars."""
    usage = Usage(
        input_tokens=2_000_000, cached_input_tokens=1_000_000, output_tokens=2_000_000, reasoning_tokens=10**6
    )
    assert RATES.cost(usage) == Decimal("26.5")


def test_cached_and_reasoning_rates_default_to_input_and_output() -> None:
    """Without their own rates, cached tokens cost as input and reasoning tokens as output."""
    price = Price(input="0.25", output="2")
    assert (price.cached_input, price.reasoning) == (Decimal("0.25"), Decimal("2"))
    usage = Usage(input_tokens=400, cached_input_tokens=100, output_tokens=300, reasoning_tokens=200)
    assert price.cost(usage) == (400 * Decimal("0.25") + 300 * 2) / 10**6


def test_a_price_refuses_floats_and_negative_rates() -> None:
    """A float is not the price it shows, and a negative rate is no price: both refused, naming the value."""
    with pytest.raises(TypeError, match=r"a price must be a Decimal, int or str .* got 0\.1"):
        Price(input=0.1, output=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"at least 0 .* got '-1'"):
        Price(input="1", output="-1")
    with pytest.raises(ValueError, match="got 'NaN'"):
        Price(input="NaN", output="1")


def test_prices_refuse_what_is_not_a_price() -> None:
    """A `Prices` table maps names to `Price`s; anything else is refused, naming it."""
    with pytest.raises(TypeError, match=r"Prices: prices must map model names \(str\) to Price, got 'm': 3"):
        Prices({"m": 3})  # type: ignore[dict-item]


def test_run_cost_splits_by_agent_and_sums() -> None:
    """Each agent's cost is the sum over its models; the total sums the agents."""
    shares = (
        ModelShare("a", "m", Usage(input_tokens=10**6, requests=1)),
        ModelShare("a", "cheap", Usage(output_tokens=10**6, requests=1)),
        ModelShare("b", "cheap", Usage(input_tokens=500_000, requests=1)),
    )
    cost = run_cost(shares, TABLE)
    assert cost.total == Decimal("3.5")
    assert [(agent.agent, agent.cost) for agent in cost.by_agent] == [("a", Decimal(3)), ("b", Decimal("0.5"))]
    assert cost.by_agent[0].models[1] == ModelCost("cheap", shares[1].usage, Decimal(1))
    assert cost.unpriced == ()
    assert format_cost(cost) == "cost: $3.5000 (a $3.0000, b $0.5000)"


def test_an_unknown_model_gives_no_price_rather_than_a_number() -> None:
    """A model the table does not know makes its agent's cost and the total `None`, and is named."""
    shares = (ModelShare("a", "m", Usage(input_tokens=10, requests=1)), ModelShare("b", "scripted", Usage(requests=1)))
    cost = run_cost(shares, TABLE)
    assert cost.total is None
    assert [agent.cost for agent in cost.by_agent] == [Decimal(20) / 10**6, None]
    assert cost.unpriced == ("scripted",)
    assert format_cost(cost) == "cost: no price for 'scripted'"


def test_calls_of_an_unknown_model_are_unpriced_as_a_question_mark() -> None:
    """Usage recorded without its model (an old record, a custom agent) has no price, named ``?``."""
    cost = run_cost((ModelShare("a", None, Usage(requests=1)),), TABLE)
    assert (cost.total, cost.unpriced) == (None, ("?",))


def test_unreported_usage_gives_no_number() -> None:
    """A call that reported no usage makes the cost unknown even though its model has a price."""
    usage = Usage(input_tokens=10, requests=2, unreported_requests=1)
    cost = run_cost((ModelShare("a", "m", usage),), TABLE)
    assert cost == RunCost(None, (AgentCost("a", None, (ModelCost("m", usage, None),)),), ())
    assert not cost.reported
    assert format_cost(cost) == "cost: not known (some usage was not reported in full)"


def test_a_run_of_one_agent_shows_one_amount() -> None:
    """One agent: the line is the amount alone; a small amount keeps two significant digits."""
    cost = run_cost((ModelShare("a", "m", Usage(input_tokens=60, requests=1)),), TABLE)
    assert format_cost(cost) == "cost: $0.00012"
    assert format_cost(run_cost((), TABLE)) == "cost: $0"


def test_genai_prices_knows_a_published_model() -> None:
    """`GenaiPrices` reads gpt-5-mini's published rates from the package's snapshot, per million tokens."""
    price = GenaiPrices().price("gpt-5-mini")
    assert price == Price(input="0.25", output="2", cached_input="0.025", reasoning="2")


def test_genai_prices_has_no_price_for_an_unknown_model() -> None:
    """A name the package does not know has no price (not an error, not zero)."""
    assert GenaiPrices().price("scripted") is None


def test_the_default_table_is_genai_prices_when_installed() -> None:
    """With ``genai-prices`` installed (the dev extra has it) the default table is `GenaiPrices`."""
    assert isinstance(default_prices(), GenaiPrices)


def test_without_genai_prices_the_default_table_prices_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``genai-prices`` cannot be imported the default table knows no model, and `GenaiPrices` says what to
    install."""
    monkeypatch.setitem(sys.modules, "genai_prices", None)
    assert default_prices().price("gpt-5-mini") is None
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'helikon_fc\[prices\]'"):
        GenaiPrices()


def test_a_usage_whose_parts_exceed_their_wholes_gives_no_number() -> None:
    """More cached than input tokens (or reasoning than output) is not a usage these rates price: no number."""
    for usage in (Usage(input_tokens=1, cached_input_tokens=2), Usage(output_tokens=1, reasoning_tokens=2)):
        cost = run_cost((ModelShare("a", "m", usage),), TABLE)
        assert (cost.total, cost.by_agent[0].cost, cost.unpriced) == (None, None, ())
    assert run_cost((ModelShare("a", "m", Usage(input_tokens=2, cached_input_tokens=2)),), TABLE).total == Decimal(
        "0.000001"
    )
