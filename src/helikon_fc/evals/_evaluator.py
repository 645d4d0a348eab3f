"""The `Evaluator` protocol and `Verdict`, what an evaluator returns for one run of one case."""

from __future__ import annotations

import math
from collections.abc import Awaitable
from typing import Protocol, runtime_checkable

import attrs

from ._case import Case
from ._observed import CaseRun


def _score(value: float) -> float:
    score = float(value)
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        raise ValueError(f"Verdict: score must be a number from 0 to 1, got {value!r}")
    return score


@attrs.frozen(kw_only=True)
class Verdict:
    """An evaluator's judgement of one run.

    Attributes:
        score: from 0 (worst) to 1 (best).
        passed: whether the run passes this evaluator.
        reason: why, in a sentence a person reads in the report.
        detail: more to show in the report (an LLM judge's prompt and raw answer), or "".
    """

    score: float = attrs.field(converter=_score)
    passed: bool
    reason: str
    detail: str = ""

    @classmethod
    def of(cls, ok: bool, reason: str, detail: str = "") -> Verdict:
        """A pass (score 1) or a failure (score 0)."""
        return cls(score=1.0 if ok else 0.0, passed=ok, reason=reason, detail=detail)


@runtime_checkable
class Evaluator(Protocol):
    """Scores one run of one case.

    `evaluate` may be sync or async (return a `Verdict` or an awaitable of one), and returns `None`
    when it does not apply to the case (an `ExactOutput` for a case with no `expected_output`).
    An evaluator is not asked about a failed run: the runner scores it 0 for every evaluator.
    """

    @property
    def name(self) -> str:
        """The column the report shows its scores under (unique among a case's evaluators)."""
        ...

    def evaluate(self, case: Case, run: CaseRun) -> Verdict | Awaitable[Verdict | None] | None:
        """The verdict on `run` of `case`, or `None` when the evaluator does not apply to it."""
        ...
