"""`Case` and `Dataset`: what an eval runs and what it expects back; the `Evaluator` protocol and its `Verdict`."""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Literal, Protocol, TypeAlias, runtime_checkable

import attrs

from ..core import JsonObject, JsonValue
from ._observed import CaseRun

CallsMatch: TypeAlias = Literal["in_order", "any_order", "subset"]
"""How the calls a run made are compared with a case's expected calls.

- ``in_order``: exactly the expected calls, in the expected order;
- ``any_order``: exactly the expected calls, in any order;
- ``subset``: every expected call was made (in any order), other calls may be made too.
"""

CALLS_MATCHES: tuple[CallsMatch, ...] = ("in_order", "any_order", "subset")

ArgumentsCheck: TypeAlias = Callable[[JsonValue], bool]
"""A predicate over a call's decoded arguments: `True` when they are acceptable."""


def _frozen_mapping(value: Mapping[str, JsonValue] | None) -> Mapping[str, JsonValue]:
    return MappingProxyType(dict(value or {}))


def _evaluators(value: Iterable[Evaluator]) -> tuple[Evaluator, ...]:
    return tuple(value)


def _cases(value: Iterable[Case]) -> tuple[Case, ...]:
    return tuple(value)


def _calls(value: Iterable[ExpectedCall] | None) -> tuple[ExpectedCall, ...] | None:
    return None if value is None else tuple(value)


def _names(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen(kw_only=True)
class ExpectedCall:
    """A tool call a case expects the run to make.

    Attributes:
        name: the tool's name.
        arguments: the decoded arguments, compared exactly (a JSON object); or a predicate over
            them (`ArgumentsCheck`); or `None` to accept any arguments.
        agent: the agent that must make the call, or `None` for any agent.
    """

    name: str
    arguments: JsonObject | ArgumentsCheck | None = None
    agent: str | None = None

    def describe(self) -> str:
        """The call as a report shows it: ``agent: name(arguments)``."""
        if self.arguments is None:
            args = "..."
        elif callable(self.arguments):
            args = f"<{getattr(self.arguments, '__name__', 'predicate')}>"
        else:
            args = json.dumps(self.arguments, sort_keys=True, ensure_ascii=False)
        return f"{self.agent + ': ' if self.agent else ''}{self.name}({args})"


@attrs.frozen(kw_only=True)
class Case:
    """One input of a dataset, with what is expected of the run on it.

    Attributes:
        name: the case's name, unique in its dataset (reports and baselines key on it).
        input: the user's message.
        expected_output: the final output expected exactly (checked by `ExactOutput`), or `None`.
        expected_calls: the tool calls expected (checked by `ToolTrajectory`), or `None`.
        calls_match: how `expected_calls` are compared (see `CallsMatch`).
        expected_agents: the agents expected to run, in order (checked by `HandoffPath`), or `None`.
        metadata: anything the application wants to keep with the case (shown in reports).
        evaluators: evaluators for this case alone, besides the dataset's.
    """

    name: str
    input: str
    expected_output: str | None = None
    expected_calls: tuple[ExpectedCall, ...] | None = attrs.field(default=None, converter=_calls)
    calls_match: CallsMatch = attrs.field(default="in_order")
    expected_agents: tuple[str, ...] | None = attrs.field(default=None, converter=_names)
    metadata: Mapping[str, JsonValue] = attrs.field(factory=dict, converter=_frozen_mapping)
    evaluators: tuple[Evaluator, ...] = attrs.field(default=(), converter=_evaluators)

    @calls_match.validator
    def _check_match(self, _: object, value: object) -> None:
        if value not in CALLS_MATCHES:
            raise ValueError(
                f"Case {self.name!r}: calls_match must be one of {', '.join(CALLS_MATCHES)}, got {value!r}"
            )


@attrs.frozen(kw_only=True)
class Dataset:
    """Cases and the evaluators that score every one of them.

    Attributes:
        cases: the cases, with unique names, in the order reports list them.
        evaluators: applied to every case (an evaluator whose expectation a case lacks does not
            apply to it: `ExactOutput` needs `expected_output`).
        name: what reports call the dataset.
    """

    cases: tuple[Case, ...] = attrs.field(converter=_cases)
    evaluators: tuple[Evaluator, ...] = attrs.field(default=(), converter=_evaluators)
    name: str = "dataset"

    @cases.validator
    def _check_cases(self, _: object, cases: tuple[Case, ...]) -> None:
        seen: set[str] = set()
        for index, case in enumerate(cases):
            if not isinstance(case, Case):
                raise TypeError(f"Dataset: cases[{index}] must be a Case, got {type(case).__name__}")
            if case.name in seen:
                raise ValueError(f"Dataset: two cases are named {case.name!r}; case names must be unique")
            seen.add(case.name)


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
