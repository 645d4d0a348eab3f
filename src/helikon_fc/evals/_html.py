"""`format_html`: an `EvalReport` as one self-contained HTML page (no scripts, no links); all data escaped."""

from __future__ import annotations

import json
from html import escape

from ._report import CaseReport, EvalReport, Repetition

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
.pass{background:#e6f4ea}.fail{background:#fce8e6}.regression{background:#fce8e6}.improvement{background:#e6f4ea}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em;margin:.3em 0}details{margin:.5em 0}
"""


def format_html(report: EvalReport) -> str:
    """The whole page: the summary, each evaluator's mean, a case-by-evaluator table, the baseline's changes,
    and for each failing case its repetitions (output or error, verdicts, trajectory, where it is recorded)."""
    title = f"eval of {report.agent} on {report.dataset}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="{"pass" if report.passed else "fail"}"><strong>{"PASSED" if report.passed else "FAILED"}</strong>: '
        f"{len(report.cases) - len(report.failed)}/{len(report.cases)} cases passed, score {report.score:.2f}, "
        f"each case run {report.repeat} time(s), a case passes at a pass rate of {report.min_pass_rate:g}.</p>",
        _evaluators(report),
        _cases(report),
        _changes(report),
        *(_failure(case, report.store) for case in report.failed),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _evaluators(report: EvalReport) -> str:
    rows = "".join(f"<tr><td>{escape(name)}</td><td>{score:.2f}</td></tr>" for name, score in report.scores.items())
    return f"<h2>Evaluators</h2><table><tr><th>evaluator</th><th>mean score</th></tr>{rows}</table>"


def _cases(report: EvalReport) -> str:
    names = report.evaluators
    head = "".join(f"<th>{escape(name)}</th>" for name in names)
    rows = []
    for case in report.cases:
        scores = case.scores
        cells = "".join(f"<td>{scores[name]:.2f}</td>" if name in scores else "<td>-</td>" for name in names)
        rate = f"{sum(r.passed for r in case.repetitions)}/{len(case.repetitions)}"
        rows.append(
            f'<tr class="{"pass" if case.passed else "fail"}"><td>{escape(case.name)}</td><td>{rate}</td>{cells}</tr>'
        )
    return f"<h2>Cases</h2><table><tr><th>case</th><th>passed</th>{head}</tr>{''.join(rows)}</table>"


def _changes(report: EvalReport) -> str:
    if not report.changes:
        return ""
    rows = "".join(
        f'<tr class="{escape(change.kind)}"><td>{escape(change.kind)}</td><td>{escape(change.case)}</td>'
        f"<td>{escape(change.evaluator or 'passed')}</td><td>{change.before:.2f}</td><td>{change.after:.2f}</td></tr>"
        for change in report.changes
    )
    return (
        "<h2>Against the baseline</h2><table><tr><th>change</th><th>case</th><th>evaluator</th><th>before</th>"
        f"<th>after</th></tr>{rows}</table>"
    )


def _failure(case: CaseReport, store: str | None) -> str:
    reps = "".join(_repetition(rep, store) for rep in case.repetitions if not rep.passed)
    odd = (
        f" (repetitions {', '.join(map(str, case.disagreeing))} disagree with the rest;"
        f" unstable: {', '.join(case.unstable)})"
        if case.disagreeing
        else ""
    )
    return (
        f"<h2>Failed: {escape(case.name)}{odd}</h2>"
        f"<p>input:</p><pre>{escape(case.input)}</pre>"
        + (
            f"<p>expected output:</p><pre>{escape(case.expected_output)}</pre>"
            if case.expected_output is not None
            else ""
        )
        + (
            f"<p>metadata:</p><pre>{escape(json.dumps(dict(case.metadata), ensure_ascii=False))}</pre>"
            if case.metadata
            else ""
        )
        + reps
    )


def _repetition(rep: Repetition, store: str | None) -> str:
    parts = [f"<h3>repetition {rep.index}</h3>"]
    if rep.run_id is not None:
        command = f"helikon runs show {rep.run_id}" + (f" --store {store}" if store else "")
        parts.append(f"<p>recorded: <code>{escape(command)}</code></p>")
    if rep.error is not None:
        parts.append(f"<p>the run failed:</p><pre>{escape(rep.error)}</pre>")
    else:
        parts.append(f"<p>output:</p><pre>{escape(rep.output or '')}</pre>")
    verdicts = "".join(
        f'<tr class="{"pass" if r.passed else "fail"}"><td>{escape(r.evaluator)}</td><td>{r.score:.2f}</td>'
        f"<td>{escape(r.reason)}"
        + (f"<details><summary>detail</summary><pre>{escape(r.detail)}</pre></details>" if r.detail else "")
        + "</td></tr>"
        for r in rep.results
    )
    parts.append(f"<table><tr><th>evaluator</th><th>score</th><th>reason</th></tr>{verdicts}</table>")
    path = " &rarr; ".join(escape(agent) for agent in rep.agents) or "(none)"
    calls = (
        "".join(f"<li><code>{escape(call.describe())}</code></li>" for call in rep.calls) or "<li>(no tool calls)</li>"
    )
    parts.append(f"<p>agents: {path}</p><p>tool calls:</p><ol>{calls}</ol>")
    parts.append(
        f"<p>usage: {rep.usage.requests} requests, {rep.usage.input_tokens} input + {rep.usage.output_tokens} output"
        f" tokens, {rep.elapsed:.3f} s</p>"
    )
    return "".join(parts)
