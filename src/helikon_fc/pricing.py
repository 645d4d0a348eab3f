"""What a run cost in US dollars: prices per model, and the cost of a run's usage by agent and model.

A run's `RunCompleted` splits its usage by agent and by the model that answered
(`usage_by_model`); a price table gives each model's rates, and `run_cost` multiplies them out.
`RunResult.cost` does it with `default_prices()`: the prices of the ``genai-prices`` package (the
``helikon_fc[prices]`` extra) where it is installed.

The rates are per million tokens. A `Usage` counts cached input tokens as a part of its input
tokens, and reasoning tokens as a part of its output tokens, so each part is priced at its own
rate::

    (input - cached) * input + cached * cached_input + (output - reasoning) * output + reasoning * reasoning

A cost is never a guess: a model with no price, a call whose usage was not reported
(`Usage.reported` is false), or a usage whose parts exceed their wholes (more cached tokens than
input tokens) makes the cost of its agent and the run's total `None`; the unpriced models are named
in `RunCost.unpriced`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from types import MappingProxyType
from typing import Protocol

import attrs

from .core import ModelShare, Usage

__all__ = [
    "AgentCost",
    "GenaiPrices",
    "ModelCost",
    "Price",
    "PriceTable",
    "Prices",
    "RunCost",
    "UNKNOWN_MODEL",
    "default_prices",
    "format_cost",
    "run_cost",
]

_MILLION = Decimal(1_000_000)


def _rate(value: Decimal | int | str) -> Decimal:
    """`value` as a `Decimal` rate of at least 0 (a float is refused: it is not the price it shows)."""
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise TypeError(f"a price must be a Decimal, int or str (USD per million tokens), got {value!r}")
    rate = Decimal(value)
    if not rate.is_finite() or rate < 0:
        raise ValueError(f"a price must be a finite number of at least 0 (USD per million tokens), got {value!r}")
    return rate


@attrs.frozen
class Price:
    """One model's rates, in US dollars per million tokens.

    Args:
        input: a token of input (the prompt) that was not read from the provider's cache.
        output: a token of output that is not reasoning.
        cached_input: an input token read from the cache; the `input` rate when not given.
        reasoning: a reasoning token; the `output` rate when not given (providers bill them as output).

    Rates are `Decimal`s (an int or a str such as ``"0.25"`` is taken too; a float is refused).
    """

    input: Decimal = attrs.field(converter=_rate)
    output: Decimal = attrs.field(converter=_rate)
    cached_input: Decimal = attrs.field(converter=_rate, default=attrs.Factory(lambda p: p.input, takes_self=True))
    reasoning: Decimal = attrs.field(converter=_rate, default=attrs.Factory(lambda p: p.output, takes_self=True))

    def cost(self, usage: Usage) -> Decimal:
        """What `usage` cost at these rates: its tokens as reported, its cached input a part of its input
        and its reasoning a part of its output (`run_cost` checks that they are)."""
        per_million = (
            (usage.input_tokens - usage.cached_input_tokens) * self.input
            + usage.cached_input_tokens * self.cached_input
            + (usage.output_tokens - usage.reasoning_tokens) * self.output
            + usage.reasoning_tokens * self.reasoning
        )
        return per_million / _MILLION


class PriceTable(Protocol):
    """Where prices come from: `Prices` (yours), `GenaiPrices` (the ``genai-prices`` package), or your own."""

    def price(self, model: str) -> Price | None:
        """The rates of `model` (a name as the `Model` gives it, e.g. ``"gpt-5-mini"``), or `None` if not known."""
        ...


class Prices:
    """A price table you give: `Price`s by model name, e.g. ``Prices({"my-model": Price(input="1", output="3")})``."""

    __slots__ = ("_prices",)

    def __init__(self, prices: Mapping[str, Price]) -> None:
        for name, price in prices.items():
            if not isinstance(name, str) or not isinstance(price, Price):
                raise TypeError(f"Prices: prices must map model names (str) to Price, got {name!r}: {price!r}")
        self._prices: Mapping[str, Price] = MappingProxyType(dict(prices))

    def price(self, model: str) -> Price | None:
        """The price given for `model`, or `None`."""
        return self._prices.get(model)

    def __repr__(self) -> str:
        return f"Prices({dict(self._prices)!r})"


class GenaiPrices:
    """The prices of the ``genai-prices`` package, as of the snapshot it ships (it never fetches updates here).

    A model name is matched as the package matches it (``"gpt-5-mini"``, ``"claude-sonnet-4-5"``,
    ``"gemini-2.5-pro"``); a name it does not know has no price. Where a model's price has tiers, the
    first tier's rates are taken. Reasoning tokens are priced as output, as the providers bill them.

    Raises:
        ModuleNotFoundError: on construction, when ``genai-prices`` is not installed
            (``pip install 'helikon_fc[prices]'``).
    """

    __slots__ = ("_calc", "_usage")

    def __init__(self) -> None:
        try:
            import genai_prices  # an optional dependency, loaded when asked for
        except ModuleNotFoundError as exc:
            raise ModuleNotFoundError(
                "GenaiPrices needs the genai-prices package: pip install 'helikon_fc[prices]'", name=exc.name
            ) from exc
        self._calc = genai_prices.calc_price
        self._usage = genai_prices.Usage

    def price(self, model: str) -> Price | None:
        """The rates `genai-prices` has for `model`, per million tokens, or `None` when it knows no such model."""
        try:
            fresh = self._calc(self._usage(input_tokens=1), model)
            cached = self._calc(self._usage(input_tokens=1, cache_read_tokens=1), model)
            output = self._calc(self._usage(output_tokens=1), model)
        except LookupError:
            return None
        return Price(
            input=(fresh.input_price * _MILLION).normalize(),
            output=(output.output_price * _MILLION).normalize(),
            cached_input=(cached.input_price * _MILLION).normalize(),
        )

    def __repr__(self) -> str:
        return "GenaiPrices()"


class _NoPrices:
    """The table of no model (when ``genai-prices`` is not installed)."""

    def price(self, model: str) -> Price | None:
        return None

    def __repr__(self) -> str:
        return "no prices (genai-prices is not installed)"


def default_prices() -> PriceTable:
    """`GenaiPrices` when ``genai-prices`` is installed, else a table with no prices."""
    try:
        return GenaiPrices()
    except ModuleNotFoundError:
        return _NoPrices()


@attrs.frozen
class ModelCost:
    """What one agent's calls to one model cost: `None` when the model has no price or some usage went unreported."""

    model: str | None
    usage: Usage
    cost: Decimal | None


@attrs.frozen
class AgentCost:
    """What one agent's own model calls cost, over its models: `None` when any of them has no cost."""

    agent: str
    cost: Decimal | None
    models: tuple[ModelCost, ...]


@attrs.frozen
class RunCost:
    """What a run and everything it ran cost.

    Attributes:
        total: the sum of every agent's cost in US dollars; `None` when any part has no cost (a model
            with no price, a call whose usage was not reported): never a number that leaves a part out.
        by_agent: the cost per agent, sorted by agent name.
        unpriced: the models that had no price, sorted (``"?"`` for calls whose model is not known).
    """

    total: Decimal | None
    by_agent: tuple[AgentCost, ...]
    unpriced: tuple[str, ...]

    @property
    def reported(self) -> bool:
        """Whether every call's usage was reported (else the tokens, and so the cost, are a lower bound)."""
        return all(part.usage.reported for agent in self.by_agent for part in agent.models)


UNKNOWN_MODEL = "?"
"""How `RunCost.unpriced` names the model of calls whose model is not known."""


def run_cost(shares: Iterable[ModelShare], prices: PriceTable) -> RunCost:
    """The cost of a run's usage by agent and model (`RunCompleted.usage_by_model`) at `prices`."""
    by_agent: dict[str, list[ModelCost]] = {}
    unpriced: set[str] = set()
    for share in shares:
        price = prices.price(share.model) if share.model is not None else None
        if price is None:
            unpriced.add(share.model if share.model is not None else UNKNOWN_MODEL)
        cost = price.cost(share.usage) if price is not None and _whole(share.usage) else None
        by_agent.setdefault(share.agent, []).append(ModelCost(share.model, share.usage, cost))
    agents = tuple(AgentCost(agent, _sum(by_agent[agent]), tuple(by_agent[agent])) for agent in sorted(by_agent))
    return RunCost(_sum(agents), agents, tuple(sorted(unpriced)))


def _whole(usage: Usage) -> bool:
    """Whether `usage` is all there is to price: every call reported, and its parts within their wholes
    (cached within input, reasoning within output tokens; otherwise the provider counted them apart)."""
    return (
        usage.reported
        and usage.cached_input_tokens <= usage.input_tokens
        and usage.reasoning_tokens <= usage.output_tokens
    )


def _sum(parts: Iterable[ModelCost | AgentCost]) -> Decimal | None:
    total = Decimal(0)
    for part in parts:
        if part.cost is None:
            return None
        total += part.cost
    return total


def format_cost(cost: RunCost) -> str:
    """One line for a person: ``cost: $0.0012 (triage $0.0004, billing $0.0008)``, or why there is no number."""
    if cost.unpriced:
        return "cost: no price for " + ", ".join(repr(model) for model in cost.unpriced)
    if cost.total is None:
        return "cost: not known (some usage was not reported in full)"
    if len(cost.by_agent) <= 1:
        return f"cost: {_dollars(cost.total)}"
    parts = ", ".join(f"{agent.agent} {_dollars(agent.cost)}" for agent in cost.by_agent if agent.cost is not None)
    return f"cost: {_dollars(cost.total)} ({parts})"


def _dollars(amount: Decimal) -> str:
    """`amount` in dollars: four places, more for a smaller amount (two significant digits: ``$0.00012``)."""
    if amount == 0:
        return "$0"
    places = max(4, 1 - amount.adjusted())
    return f"${amount:.{places}f}"
