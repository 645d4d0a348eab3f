"""`compare`: which cases and evaluator scores got worse (regressions) or better (improvements) than a baseline."""

from __future__ import annotations

from ._report import Change, EvalReport

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
            kind = "improvement" if case.passed else "regression"
            changes.append(
                Change(case=case.name, evaluator=None, before=float(old.passed), after=float(case.passed), kind=kind)
            )
        old_scores, new_scores = old.scores, case.scores
        for name, score in new_scores.items():
            previous = old_scores.get(name)
            if previous is None or abs(score - previous) <= TOLERANCE:
                continue
            kind = "improvement" if score > previous else "regression"
            changes.append(Change(case=case.name, evaluator=name, before=previous, after=score, kind=kind))
    return tuple(changes)
