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

import inspect
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

import attrs
import trio

from ..core import AgentEvent, GuardrailTriggered, GuardrailTripped, Item, JsonValue, RunFailed, UserMessage
from . import _checks

if TYPE_CHECKING:
    from .context import RunContext

__all__ = [
    "Guardrail",
    "GuardrailVerdict",
    "Pass",
    "Tripped",
    "Tripwire",
    "guardrail_tuple",
    "input_text",
    "run_guardrails",
    "run_input_guardrails",
    "run_output_guardrails",
]

Ctx = TypeVar("Ctx")

OTHER = "other"
"""The kind of the tripwire a raising guardrail becomes."""


@attrs.frozen
class Pass:
    """The guarded text is fine."""


@attrs.frozen
class Tripwire:
    """The guarded text must stop the run; `kind` says what kind of problem (``"input_policy"``, ...)."""

    kind: str
    info: JsonValue = None


GuardrailVerdict: TypeAlias = Pass | Tripwire
"""What a guardrail's check answers."""


_CHECK = "an async callable (ctx, text) -> Pass | Tripwire"


def _require_check(owner: str, argument: str, value: object) -> None:
    if not callable(value) or isinstance(value, type):
        raise TypeError(_checks.message(owner, argument, value, _CHECK))
    if inspect.isfunction(value) and not inspect.iscoroutinefunction(value):
        raise TypeError(_checks.message(owner, argument, value, _CHECK, "define it with `async def`"))


@attrs.frozen
class Guardrail(Generic[Ctx]):
    """A named async check: ``await check(ctx, text)`` answers `Pass` or `Tripwire`.

    Attributes:
        name: Names the guardrail in a raising guardrail's tripwire info.
        check: The check; it may await (a moderation call) and may raise (a tripwire of kind ``"other"``).
    """

    name: str = attrs.field(validator=_checks.field(_checks.require_name))
    check: Callable[[RunContext[Ctx], str], Awaitable[GuardrailVerdict]] = attrs.field(
        validator=_checks.field(_require_check)
    )


def require_guardrail(owner: str, argument: str, value: object) -> None:
    """Raise `TypeError` unless `value` is a `Guardrail`; a bare function gets a hint to wrap it."""
    if isinstance(value, Guardrail):
        return
    hint = "wrap the check: Guardrail('name', check)" if callable(value) else ""
    raise TypeError(_checks.message(owner, argument, value, "a Guardrail(name, check)", hint))


def guardrail_tuple(owner: str, argument: str, value: object) -> tuple[Guardrail[Any], ...]:
    """`value` (an iterable of guardrails) as a tuple, each element checked (`require_guardrail`)."""
    if isinstance(value, Guardrail | str) or not isinstance(value, Iterable):
        raise TypeError(_checks.message(owner, argument, value, "a list of Guardrail values", "wrap one in a list"))
    items = tuple(value)
    for index, item in enumerate(items):
        require_guardrail(owner, f"{argument}[{index}]", item)
    return items


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
