"""Scoring one run of a case: every evaluator's verdict, an evaluator that raises counted as a failure."""

from __future__ import annotations

import inspect

import trio

from ._case import Case, Evaluator, Verdict
from ._case_evaluators import applies
from ._observed import CaseRun
from ._report import EvaluatorResult, Repetition


async def score_run(index: int, case: Case, run: CaseRun, evaluators: tuple[tuple[str, Evaluator], ...]) -> Repetition:
    """The `Repetition` of `run`: a failed run scores 0 on every evaluator that applies to the case."""
    await trio.lowlevel.checkpoint()
    results: list[EvaluatorResult] = []
    for name, evaluator in evaluators:
        if run.error is not None:
            if applies(evaluator, case):
                results.append(
                    EvaluatorResult(evaluator=name, score=0.0, passed=False, reason=f"the run failed: {run.error}")
                )
            continue
        verdict = await _verdict(evaluator, case, run)
        if verdict is not None:
            results.append(
                EvaluatorResult(
                    evaluator=name,
                    score=verdict.score,
                    passed=verdict.passed,
                    reason=verdict.reason,
                    detail=verdict.detail,
                )
            )
    return Repetition(
        index=index,
        passed=run.error is None and all(result.passed for result in results),
        output=run.output,
        error=run.error,
        results=tuple(results),
        calls=run.calls,
        agents=run.agents,
        usage=run.usage,
        run_id=run.run_id,
        elapsed=run.elapsed,
    )


async def _verdict(evaluator: Evaluator, case: Case, run: CaseRun) -> Verdict | None:
    await trio.lowlevel.checkpoint()  # between evaluators, sync ones included
    try:
        answer = evaluator.evaluate(case, run)
        verdict = await answer if inspect.isawaitable(answer) else answer
    except Exception as exc:  # the evaluator's bug fails this verdict, not the eval
        return Verdict.of(False, f"the evaluator raised {type(exc).__name__}: {exc}")
    if verdict is not None and not isinstance(verdict, Verdict):
        return Verdict.of(False, f"the evaluator returned {verdict!r}, not a Verdict or None")
    return verdict
