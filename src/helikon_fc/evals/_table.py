"""`format_table`: an `EvalReport` as a terminal table, the failing cases' reasons and the baseline's changes."""

from __future__ import annotations

from ._report import CaseReport, Change, EvalReport


def format_table(report: EvalReport) -> str:
    """The report for a terminal: a row per case (pass rate, each evaluator's score), then why cases failed."""
    names = report.evaluators
    rows = [("CASE", "PASS", *names)]
    rows += [(case.name, _rate(case), *(_score(case, name) for name in names)) for case in report.cases]
    rows.append(
        (
            "mean",
            f"{sum(c.passed for c in report.cases)}/{len(report.cases)}",
            *(f"{report.scores[n]:.2f}" for n in names),
        )
    )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(len(lines) - 1, "  ".join("-" * width for width in widths))
    lines += _failures(report)
    lines += _changes(report.changes)
    verdict = "PASSED" if report.passed else "FAILED"
    lines.append(
        f"{verdict}: {len(report.cases) - len(report.failed)}/{len(report.cases)} cases passed,"
        f" score {report.score:.2f}" + (f", {len(report.regressions)} regression(s)" if report.regressions else "")
    )
    return "\n".join(lines) + "\n"


def _rate(case: CaseReport) -> str:
    done = len(case.repetitions)
    passed = sum(rep.passed for rep in case.repetitions)
    mark = "ok" if case.passed else "FAIL"
    return f"{mark} {passed}/{done}" if done > 1 else mark


def _score(case: CaseReport, name: str) -> str:
    scores = case.scores
    return f"{scores[name]:.2f}" if name in scores else "-"


def _failures(report: EvalReport) -> list[str]:
    lines: list[str] = []
    for case in report.failed:
        odd = f" (repetitions {list(case.disagreeing)} disagree; unstable: {', '.join(case.unstable)})"
        lines.append(f"\n{case.name}: failed" + (odd if case.disagreeing else ""))
        for rep in case.repetitions:
            if rep.passed:
                continue
            where = f" [run {rep.run_id}]" if rep.run_id else ""
            if rep.error is not None:
                lines.append(f"  #{rep.index}{where} the run failed: {rep.error}")
            for result in rep.results:
                if not result.passed and rep.error is None:
                    lines.append(f"  #{rep.index}{where} {result.evaluator}: {result.reason}")
    if report.store and report.failed:
        lines.append(f"\ninspect a run: helikon runs show RUN_ID --store {report.store}")
    return lines


def _changes(changes: tuple[Change, ...]) -> list[str]:
    if not changes:
        return []
    lines = ["\nagainst the baseline:"]
    for change in changes:
        what = change.evaluator or "passed"
        lines.append(f"  {change.kind.upper():<11} {change.case} / {what}: {change.before:.2f} -> {change.after:.2f}")
    return lines
