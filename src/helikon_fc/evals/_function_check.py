"""`UserFunction`: an evaluator written as a function (sync or async) returning a score and a reason."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import attrs
import trio

from ._case import Case, Verdict
from ._observed import CaseRun

Scored: TypeAlias = "tuple[float, str] | Verdict | None"
"""What a user function returns: ``(score, reason)``, a whole `Verdict`, or `None` (not applicable)."""

ScoreFunction: TypeAlias = Callable[[Case, CaseRun], "Scored | Awaitable[Scored]"]
"""A user's evaluator: ``fn(case, run)``, sync or async."""


def _callable(_: object, __: object, value: Any) -> None:
    if not callable(value):
        raise TypeError(f"UserFunction: fn must be a function of (case, run), got {value!r}")


@attrs.frozen(kw_only=True)
class UserFunction:
    """Score runs with your own function: ``UserFunction(fn=polite, name="polite")``.

    `fn(case, run)` returns ``(score, reason)`` (a score from 0 to 1), a `Verdict`, or `None` when it
    does not apply; it may be async. A ``(score, reason)`` passes when the score is at least `threshold`.

    Attributes:
        fn: the function.
        name: the report's column (default: the function's name).
        threshold: the lowest passing score, for ``(score, reason)`` answers.
    """

    fn: ScoreFunction = attrs.field(validator=_callable)
    name: str = attrs.field()
    threshold: float = 1.0

    @name.default
    def _name(self) -> str:
        return str(getattr(self.fn, "__name__", "function"))

    async def evaluate(self, case: Case, run: CaseRun) -> Verdict | None:
        """Call the function (awaiting it when async) and turn its answer into a `Verdict`."""
        await trio.lowlevel.checkpoint()
        answer = self.fn(case, run)
        value = await answer if inspect.isawaitable(answer) else answer
        if value is None or isinstance(value, Verdict):
            return value
        match value:
            case (int() | float() as score, str() as reason) if not isinstance(score, bool):
                return Verdict(score=score, passed=score >= self.threshold, reason=reason)
            case _:
                raise TypeError(
                    f"UserFunction {self.name!r}: the function returned {value!r};"
                    " return (score, reason), a Verdict, or None"
                )
