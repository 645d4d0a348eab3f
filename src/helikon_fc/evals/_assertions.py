"""`assert_report` and `assert_dataset`: a dataset's score asserted in a test, with a message that says what failed."""

from __future__ import annotations

from typing import Any

from ._case import Dataset
from ._report import EvalReport
from ._running import AgentSource
from ._table import format_table


def assert_report(report: EvalReport, *, min_score: float | None = None, all_pass: bool | None = None) -> EvalReport:
    """Raise `AssertionError` unless the report is good enough; return it otherwise.

    Args:
        report: an eval's report.
        min_score: the lowest acceptable mean score (`EvalReport.score`).
        all_pass: require every case to pass and nothing to regress (default: when `min_score` is not given).

    Raises:
        AssertionError: with the report's terminal table, so the test output shows each failing case and why.
    """
    problems = []
    if min_score is not None and report.score < min_score:
        problems.append(f"score {report.score:.3f} < min_score {min_score:g}")
    if all_pass if all_pass is not None else min_score is None:
        if report.failed:
            problems.append(f"{len(report.failed)} case(s) failed: {', '.join(case.name for case in report.failed)}")
        if report.regressions:
            problems.append(f"{len(report.regressions)} regression(s) against the baseline")
    if problems:
        raise AssertionError(
            f"eval of {report.agent} on {report.dataset}: {'; '.join(problems)}\n{format_table(report)}"
        )
    return report


def assert_dataset(
    agent: AgentSource,
    dataset: Dataset,
    *,
    min_score: float | None = None,
    all_pass: bool | None = None,
    virtual_time: bool = True,
    **options: Any,
) -> EvalReport:
    """Run `dataset` on `agent` (`run_eval_sync`, in virtual time by default) and `assert_report` its report.

    For a sync test; in an async (trio) test, ``assert_report(await run_eval(agent, dataset), min_score=...)``.
    """
    from ._runner import run_eval_sync

    report = run_eval_sync(agent, dataset, virtual_time=virtual_time, **options)
    return assert_report(report, min_score=min_score, all_pass=all_pass)
