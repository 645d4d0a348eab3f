"""Guardrails: checks on a run's input and final output that stop the run when they trip.

A guardrail is a name and an async check over the text it guards, answering `Pass` or
`Tripwire(kind, info)`. The guardrails of one kind run concurrently in one nursery; the first
tripwire cancels the others (the original ran them one by one). A guardrail that raises is a
tripwire of kind ``"other"`` whose info names the guardrail and the error.

What the driver will call (original-notes section 7):

- `run_input_guardrails` once, before any tool runs or output is delivered, on the concatenated
  text of every `UserMessage` of the seeded conversation (session history included);
- `run_output_guardrails` when the run produced its final answer, on that answer's text.

A trip becomes `GuardrailTriggered(kind, info)` followed by `RunFailed(GuardrailTripped(kind, info))`
(`Tripped.events`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import attrs
import trio

from ...core import AgentEvent, GuardrailTriggered, GuardrailTripped, Item, RunFailed, UserMessage
from ..context.control_values import GuardrailVerdict, Pass, Tripwire
from ..context.run_context import Guardrail, RunContext, guardrail_tuple, require_guardrail

__all__ = [
    "Guardrail",
    "GuardrailVerdict",
    "Pass",
    "Tripped",
    "Tripwire",
    "guardrail_tuple",
    "input_text",
    "require_guardrail",
    "run_guardrails",
    "run_input_guardrails",
    "run_output_guardrails",
]

Ctx = TypeVar("Ctx")

OTHER = "other"
"""The kind of the tripwire a raising guardrail becomes."""


@attrs.frozen
class Tripped:
    """A guardrail tripped: which one, and its tripwire."""

    guardrail: str
    tripwire: Tripwire

    @property
    def error(self) -> GuardrailTripped:
        """The run's failure."""
        return GuardrailTripped(self.tripwire.kind, self.tripwire.info)

    @property
    def events(self) -> tuple[AgentEvent, ...]:
        """What the run ends with: ``GuardrailTriggered`` then ``RunFailed(GuardrailTripped)``."""
        return (GuardrailTriggered(self.tripwire.kind, self.tripwire.info), RunFailed(self.error))


def input_text(items: Iterable[Item]) -> str:
    """The text input guardrails check: every `UserMessage`'s text, concatenated with no separator."""
    return "".join(item.text for item in items if isinstance(item, UserMessage))


async def run_guardrails(guardrails: Sequence[Guardrail[Ctx]], ctx: RunContext[Ctx], text: str) -> Tripped | None:
    """Run `guardrails` on `text` concurrently; the first to trip cancels the rest.

    Returns:
        The first trip, or `None` when every guardrail passed. trio's ``Cancelled`` propagates.
    """
    if not guardrails:
        await trio.lowlevel.checkpoint()
        return None
    first: list[Tripped] = []
    async with trio.open_nursery() as nursery:
        for guardrail in guardrails:
            nursery.start_soon(_check, guardrail, ctx, text, first, nursery.cancel_scope)
    return first[0] if first else None


async def run_input_guardrails(
    guardrails: Sequence[Guardrail[Ctx]], ctx: RunContext[Ctx], items: Iterable[Item]
) -> Tripped | None:
    """Run the input guardrails on the user text of `items` (see `input_text`)."""
    return await run_guardrails(guardrails, ctx, input_text(items))


async def run_output_guardrails(
    guardrails: Sequence[Guardrail[Ctx]], ctx: RunContext[Ctx], final_text: str
) -> Tripped | None:
    """Run the output guardrails on the final answer's text."""
    return await run_guardrails(guardrails, ctx, final_text)


async def _check(
    guardrail: Guardrail[Any], ctx: RunContext[Any], text: str, first: list[Tripped], scope: trio.CancelScope
) -> None:
    await trio.lowlevel.checkpoint()
    try:
        verdict: object = await guardrail.check(ctx, text)
    except Exception as exc:
        verdict = Tripwire(OTHER, {"guardrail": guardrail.name, "reason": f"{type(exc).__name__}: {exc}"})
    if not isinstance(verdict, Pass | Tripwire):
        reason = f"returned {type(verdict).__name__}, not Pass or Tripwire"
        verdict = Tripwire(OTHER, {"guardrail": guardrail.name, "reason": reason})
    if isinstance(verdict, Tripwire) and not first:
        first.append(Tripped(guardrail.name, verdict))
        scope.cancel()
