"""An `EvalReport` as JSON and back (``helikon eval --json``; the `baseline` of a later eval)."""

from __future__ import annotations

import json
from typing import Any

import attrs

from ..core import Usage
from ._observed import ObservedCall
from ._report import CaseReport, Change, EvalReport, EvaluatorResult, Repetition

FORMAT = "helikon-eval-report/1"
"""The ``format`` tag of the JSON a report is written as."""


class ReportFormatError(ValueError):
    """A JSON document is not an eval report this version reads; the message says what is wrong and where."""


def report_to_json(report: EvalReport) -> str:
    """The report as a JSON document (read back by `report_from_json`); summary scores included for other tools."""
    document = {
        "format": FORMAT,
        "summary": {
            "score": report.score,
            "scores": dict(report.scores),
            "passed": report.passed,
            "failed": [case.name for case in report.failed],
        },
        **{key: value for key, value in attrs.asdict(report, recurse=False).items() if key not in ("cases", "changes")},
        "cases": [_case(case) for case in report.cases],
        "changes": [attrs.asdict(change) for change in report.changes],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _case(case: CaseReport) -> dict[str, Any]:
    return {
        "name": case.name,
        "input": case.input,
        "expected_output": case.expected_output,
        "metadata": dict(case.metadata),
        "passed": case.passed,
        "scores": dict(case.scores),
        "repetitions": [_repetition(rep) for rep in case.repetitions],
    }


def _repetition(rep: Repetition) -> dict[str, Any]:
    document = attrs.asdict(rep, recurse=False)
    document["results"] = [attrs.asdict(result) for result in rep.results]
    document["calls"] = [attrs.asdict(call) for call in rep.calls]
    document["agents"] = list(rep.agents)
    document["usage"] = attrs.asdict(rep.usage)
    return document


def report_from_json(text: str) -> EvalReport:
    """The report `report_to_json` wrote.

    Raises:
        ReportFormatError: `text` is not JSON, or not an eval report (the message names the missing or bad field).
    """
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ReportFormatError(f"not JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        got = document.get("format") if isinstance(document, dict) else type(document).__name__
        raise ReportFormatError(f"not an eval report: expected format {FORMAT!r}, got {got!r}")
    try:
        return EvalReport(
            dataset=document["dataset"],
            agent=document["agent"],
            repeat=document["repeat"],
            min_pass_rate=document["min_pass_rate"],
            store=document.get("store"),
            cases=tuple(_read_case(case) for case in document["cases"]),
            changes=tuple(Change(**change) for change in document.get("changes", ())),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReportFormatError(
            f"not an eval report: a field is missing or malformed ({type(exc).__name__}: {exc})"
        ) from None


def _read_case(case: dict[str, Any]) -> CaseReport:
    return CaseReport(
        name=case["name"],
        input=case["input"],
        expected_output=case["expected_output"],
        metadata=case.get("metadata", {}),
        passed=case["passed"],
        repetitions=tuple(_read_repetition(rep) for rep in case["repetitions"]),
    )


def _read_repetition(rep: dict[str, Any]) -> Repetition:
    return Repetition(
        index=rep["index"],
        passed=rep["passed"],
        output=rep["output"],
        error=rep["error"],
        results=tuple(EvaluatorResult(**result) for result in rep["results"]),
        calls=tuple(ObservedCall(**call) for call in rep.get("calls", ())),
        agents=tuple(rep.get("agents", ())),
        usage=Usage(**rep.get("usage", {})),
        run_id=rep.get("run_id"),
        elapsed=rep.get("elapsed", 0.0),
    )
