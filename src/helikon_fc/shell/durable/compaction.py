"""`Compaction`: the budget on `RunConfig` past which a run summarises its older conversation.

The decision, the summary request and the splice are pure (`core.compaction`); the driver makes
the summary call with `Compaction.model` (the agent's own model when it is `None`), without
forwarding its deltas: a summary is not part of the answer.
"""

from __future__ import annotations

import attrs

from ...core import AgentEvent, CompactionPolicy
from ...core.compaction import DEFAULT_SUMMARY_INSTRUCTIONS
from ...models.protocol import Model
from .. import _checks

LEAST_SUMMARY = 16
"""The fewest tokens a summary may be given (its system message's prefix needs some of them)."""


def check_max_tokens(owner: str, argument: str, value: object) -> None:
    """Raise unless `value` can be a compaction budget: an int above `LEAST_SUMMARY`."""
    _checks.require_int(owner, argument, value, LEAST_SUMMARY + 1)


def check_summary_tokens(owner: str, argument: str, value: object) -> None:
    """Raise unless `value` can be a summary's token budget: an int of at least `LEAST_SUMMARY`."""
    _checks.require_int(owner, argument, value, LEAST_SUMMARY)


def _default_summary_tokens(self: Compaction) -> int:
    return max(LEAST_SUMMARY, self.max_tokens // 4) if isinstance(self.max_tokens, int) else LEAST_SUMMARY


@attrs.frozen(kw_only=True)
class Compaction:
    """Compact the conversation the model sees once it passes `max_tokens` (estimated).

    Before each model call, when the conversation the model would see is estimated (``chars / 4``
    per item) above `max_tokens`, the run asks `model` to summarise everything before the last turn
    and goes on with the summary in its place. The run's stored conversation keeps every item; a
    failed or blank summary is skipped with a `CompactionSkipped` warning event.

    Attributes:
        max_tokens: the estimated tokens the model may be shown (at least 17).
        summary_tokens: the most a summary may hold (it is cut to this; the summary call is asked
            for no more); defaults to a quarter of `max_tokens`, at least 16, and must stay below it.
        instructions: the summary request's instructions (a default asks for a summary an assistant
            could carry on from).
        model: the model that writes the summaries; `None` uses the agent's own.

    Example:
        >>> from helikon_fc import Compaction, RunConfig
        >>> RunConfig(compaction=Compaction(max_tokens=4000)).compaction.summary_tokens
        1000
    """

    max_tokens: int = attrs.field(validator=_checks.field(check_max_tokens))
    summary_tokens: int = attrs.field(
        default=attrs.Factory(_default_summary_tokens, takes_self=True),
        validator=_checks.field(check_summary_tokens),
    )
    instructions: str = attrs.field(default=DEFAULT_SUMMARY_INSTRUCTIONS, validator=_checks.field(_checks.require_name))
    model: Model | None = attrs.field(default=None, validator=_checks.field(_checks.optional(_checks.require_model)))

    def __attrs_post_init__(self) -> None:
        if self.summary_tokens >= self.max_tokens:
            allowed = f"an int < max_tokens ({self.max_tokens})"
            raise ValueError(_checks.message("Compaction", "summary_tokens", self.summary_tokens, allowed))

    def policy(self) -> CompactionPolicy:
        """The pure part the transition reads."""
        return CompactionPolicy(
            max_tokens=self.max_tokens, summary_tokens=self.summary_tokens, instructions=self.instructions
        )


async def discard(event: AgentEvent) -> None:  # noqa: ASYNC910, ASYNC124 - a `Send` sink per event: async by its type
    """Where a summary call's deltas go: nowhere (the summary arrives as `ConversationCompacted`)."""
    del event
