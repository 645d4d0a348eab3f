"""The report of an eval: per case, per repetition, per evaluator; and its changes against a baseline."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, TypeAlias

import attrs

from ..core import JsonValue, Usage
from ._observed import ObservedCall

ChangeKind: TypeAlias = Literal["regression", "improvement"]

_flag = attrs.validators.instance_of(bool)


def _number(_: object, attribute: attrs.Attribute[float], value: object) -> None:
    """A float field holds a number (read from JSON, an int is one), never a bool or a string."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{attribute.name} must be a number, got {value!r}")


@attrs.frozen(kw_only=True)
class EvaluatorResult:
    """One evaluator's verdict on one run: its `score` (0..1), whether it `passed`, and why."""

    evaluator: str
    score: float = attrs.field(validator=_number)
    passed: bool = attrs.field(validator=_flag)
    reason: str
    detail: str = ""
    """More for the report (an LLM judge's prompt and answer), or ""."""


@attrs.frozen(kw_only=True)
class Repetition:
    """One run of a case and its verdicts.

    Attributes:
        index: which repetition (from 0).
        passed: the run succeeded and every evaluator passed it.
        output: the final output (`None` when the run failed).
        error: why the run failed, or `None`.
        results: one per evaluator that applies to the case, in the case's evaluator order.
        calls: the tool calls made, each with its agent.
        agents: the agents that ran, in order.
        usage: what the run used.
        run_id: where the run is recorded (``helikon runs show RUN_ID --store ...``), or `None`.
        elapsed: seconds on the trio clock (virtual seconds in virtual time).
    """

    index: int = attrs.field(validator=attrs.validators.instance_of(int))
    passed: bool = attrs.field(validator=_flag)
    output: str | None
    error: str | None
    results: tuple[EvaluatorResult, ...]
    calls: tuple[ObservedCall, ...] = ()
    agents: tuple[str, ...] = ()
    usage: Usage = Usage()
    run_id: str | None = None
    elapsed: float = attrs.field(default=0.0, validator=_number)

    @property
    def score(self) -> float:
        """The mean of the results' scores (0 for a failed run, 1 for a run no evaluator applies to)."""
        if self.error is not None:
            return 0.0
        return _mean([result.score for result in self.results], empty=1.0)


def _mean(values: list[float], *, empty: float) -> float:
    return sum(values) / len(values) if values else empty


def _frozen(value: Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
    return MappingProxyType(dict(value))


@attrs.frozen(kw_only=True)
class CaseReport:
    """A case, its repetitions, and whether it passed (its pass rate reached the eval's `min_pass_rate`)."""

    name: str
    input: str
    expected_output: str | None
    metadata: Mapping[str, JsonValue] = attrs.field(factory=dict, converter=_frozen)
    repetitions: tuple[Repetition, ...]
    passed: bool = attrs.field(validator=_flag)

    @property
    def pass_rate(self) -> float:
        """The share of repetitions that passed."""
        return _mean([1.0 if rep.passed else 0.0 for rep in self.repetitions], empty=0.0)

    @property
    def evaluators(self) -> tuple[str, ...]:
        """The evaluators that scored this case, in order."""
        names: dict[str, None] = {}
        for rep in self.repetitions:
            names.update(dict.fromkeys(result.evaluator for result in rep.results))
        return tuple(names)

    @property
    def scores(self) -> Mapping[str, float]:
        """Each evaluator's mean score over the repetitions it judged."""
        return {
            name: _mean([r.score for rep in self.repetitions for r in rep.results if r.evaluator == name], empty=0.0)
            for name in self.evaluators
        }

    @property
    def score(self) -> float:
        """The mean of the repetitions' scores."""
        return _mean([rep.score for rep in self.repetitions], empty=0.0)

    @property
    def disagreeing(self) -> tuple[int, ...]:
        """The repetitions whose outcome differs from the majority's (a tie counts the passing ones as the odd ones
        out): empty when every repetition agrees."""
        passed = [rep.index for rep in self.repetitions if rep.passed]
        failed = [rep.index for rep in self.repetitions if not rep.passed]
        if not passed or not failed:
            return ()
        return tuple(passed if len(passed) <= len(failed) else failed)

    @property
    def unstable(self) -> tuple[str, ...]:
        """The evaluators that passed some repetitions and failed others (a failed run counts as failing all)."""
        outcomes: dict[str, set[bool]] = {}
        for rep in self.repetitions:
            for result in rep.results:
                outcomes.setdefault(result.evaluator, set()).add(result.passed)
        return tuple(name for name, seen in outcomes.items() if len(seen) > 1)


@attrs.frozen(kw_only=True)
class Change:
    """A case or evaluator score that moved against the baseline.

    Attributes:
        case: the case.
        evaluator: the evaluator, or `None` for the case's pass/fail (`before`/`after` are then 1 or 0).
        before: the baseline's score.
        after: this eval's score.
        kind: ``regression`` (lower, or now failing) or ``improvement``.
    """

    case: str
    evaluator: str | None
    before: float = attrs.field(validator=_number)
    after: float = attrs.field(validator=_number)
    kind: ChangeKind = attrs.field(validator=attrs.validators.in_(("regression", "improvement")))


@attrs.frozen(kw_only=True)
class EvalReport:
    """What an eval found.

    Attributes:
        dataset: the dataset's name.
        agent: the agent's name.
        repeat: how many times each case ran.
        min_pass_rate: the pass rate a case needs to pass.
        cases: one per case, in the dataset's order (whatever order they finished in).
        changes: regressions and improvements against a baseline (see `with_baseline`), else empty.
        store: where the runs are recorded (a path or DSN, for ``helikon runs show``), or `None`.
    """

    dataset: str
    agent: str
    repeat: int
    min_pass_rate: float
    cases: tuple[CaseReport, ...]
    changes: tuple[Change, ...] = ()
    store: str | None = None

    @property
    def evaluators(self) -> tuple[str, ...]:
        """Every evaluator that scored some case, in order of first appearance."""
        names: dict[str, None] = {}
        for case in self.cases:
            names.update(dict.fromkeys(case.evaluators))
        return tuple(names)

    @property
    def scores(self) -> Mapping[str, float]:
        """Each evaluator's mean score over the cases it scored."""
        return {
            name: _mean([case.scores[name] for case in self.cases if name in case.scores], empty=0.0)
            for name in self.evaluators
        }

    @property
    def score(self) -> float:
        """The mean of the cases' scores."""
        return _mean([case.score for case in self.cases], empty=0.0)

    @property
    def failed(self) -> tuple[CaseReport, ...]:
        """The cases that did not pass."""
        return tuple(case for case in self.cases if not case.passed)

    @property
    def regressions(self) -> tuple[Change, ...]:
        """The changes against the baseline that are regressions."""
        return tuple(change for change in self.changes if change.kind == "regression")

    @property
    def improvements(self) -> tuple[Change, ...]:
        """The changes against the baseline that are improvements."""
        return tuple(change for change in self.changes if change.kind == "improvement")

    @property
    def passed(self) -> bool:
        """Every case passed and nothing regressed: what ``helikon eval`` exits 0 on."""
        return not self.failed and not self.regressions

    def with_baseline(self, baseline: EvalReport) -> EvalReport:
        """This report with its `changes` against `baseline` (see `compare`)."""
        return attrs.evolve(self, changes=compare(baseline, self))


TOLERANCE = 1e-9
"""Score differences up to this are noise (floating-point sums), not changes."""


def compare(baseline: EvalReport, current: EvalReport) -> tuple[Change, ...]:
    """The changes from `baseline` to `current`, per case (pass/fail) and per evaluator score.

    Only cases and evaluators present in both are compared (a new case is neither a regression nor an
    improvement). A case that passed and now fails is a regression even when no score moved (a lower pass
    rate), and its evaluators whose mean score fell are regressions of their own.
    """
    before = {case.name: case for case in baseline.cases}
    changes: list[Change] = []
    for case in current.cases:
        old = before.get(case.name)
        if old is None:
            continue
        if old.passed != case.passed:
            kind: ChangeKind = "improvement" if case.passed else "regression"
            changes.append(
                Change(case=case.name, evaluator=None, before=float(old.passed), after=float(case.passed), kind=kind)
            )
        old_scores, new_scores = old.scores, case.scores
        for name, score in new_scores.items():
            previous = old_scores.get(name)
            if previous is None or abs(score - previous) <= TOLERANCE:
                continue
            change: ChangeKind = "improvement" if score > previous else "regression"
            changes.append(Change(case=case.name, evaluator=name, before=previous, after=score, kind=change))
    return tuple(changes)
