"""Token and request accounting."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class Usage:
    """What model calls cost: tokens by kind and the number of requests.

    Usages add field by field with ``+``. The loop counts `requests` itself (one per model
    call), whatever the provider reports.

    A provider that reports no token counts for a call (some compatible servers never send a
    usage object) is not saying "0 tokens": that call counts in `unreported_requests`, so when it
    is above 0 the token fields are a lower bound, not the cost (`reported` is then `False`).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    requests: int = 0
    unreported_requests: int = 0
    """How many of the `requests` came back without a usage report (their tokens are not counted)."""

    @property
    def reported(self) -> bool:
        """Whether every request's tokens were reported, so the token fields are the whole cost."""
        return self.unreported_requests == 0

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            requests=self.requests + other.requests,
            unreported_requests=self.unreported_requests + other.unreported_requests,
        )


def one_call(reported: Usage) -> Usage:
    """One model call's usage as the loop counts it: the tokens `reported`, and exactly one request.

    The provider's own request count is ignored (the loop counts each call it makes once); whether the
    tokens were reported is kept. `transition` and the driver's meter both count a call with this.
    """
    return Usage(
        input_tokens=reported.input_tokens,
        output_tokens=reported.output_tokens,
        cached_input_tokens=reported.cached_input_tokens,
        reasoning_tokens=reported.reasoning_tokens,
        requests=1,
        unreported_requests=reported.unreported_requests,
    )


TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens")
"""The fields of `Usage` a model reports (the loop counts `requests` itself)."""


def usage_problem(usage: object) -> str | None:
    """Why `usage` cannot be what a model reports for one call (`None` when it can): it must be a `Usage`
    whose token counts are ints of at least 0 (not bools, not floats)."""
    if not isinstance(usage, Usage):
        return f"usage {usage!r}, which is not a Usage"
    for name in TOKEN_FIELDS:
        value = getattr(usage, name)
        if type(value) is not int or value < 0:
            return f"usage with {name}={value!r}: token counts are ints of at least 0"
    return None


@attrs.frozen
class AgentUsage:
    """What one agent's own model calls cost within a run (`RunCompleted.usage_by_agent`)."""

    agent: str
    usage: Usage


@attrs.frozen
class ModelShare:
    """What one agent's calls to one model cost within a run (`RunCompleted.usage_by_model`).

    `model` is the name of the model that answered; `None` when it is not known (usage an `Agent` of
    your own reported without a meter, or a run recorded before models were counted).
    """

    agent: str
    model: str | None
    usage: Usage
