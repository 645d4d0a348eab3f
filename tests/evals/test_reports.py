"""Reports: JSON that reads back equal, an HTML page that escapes every piece of data, the terminal table, the
baseline's regressions and improvements, and the assertion helpers' messages."""

from __future__ import annotations

import json

import attrs
import pytest
import trio.testing
from tests.evals.agents import budget_agent, failing_agent

from helikon_fc.evals import (
    Case,
    Contains,
    Dataset,
    EvalReport,
    ExpectedCall,
    ReportFormatError,
    assert_dataset,
    assert_report,
    compare,
    format_html,
    format_table,
    report_from_json,
    report_to_json,
    run_eval,
    run_eval_sync,
)

HOSTILE = '<script>alert("x")</script>&amp;'


def _report(agent_name: str = "budget", *, fail_travel: bool = False) -> EvalReport:
    cases = [
        Case(
            name="dining",
            input="budget for dining",
            expected_calls=[ExpectedCall(name="lookup", arguments={"category": "dining"})],
            metadata={"topic": "budgets", "tags": ["a", "b"]},
        ),
        Case(
            name="travel", input="budget for travel", expected_output="The budget is $200." if not fail_travel else "no"
        ),
    ]
    return run_eval_sync(
        budget_agent(name=agent_name),
        Dataset(cases=cases, evaluators=[Contains(text="$")]),
        virtual_time=True,
        repeat=2,
    )


def test_json_reads_back_equal() -> None:
    """`report_from_json(report_to_json(r)) == r`, for a passing report and for one with failures and changes."""
    passing = _report()
    assert report_from_json(report_to_json(passing)) == passing
    failing = _report(fail_travel=True).with_baseline(passing)
    assert failing.changes
    assert report_from_json(report_to_json(failing)) == failing


def test_json_carries_a_summary_for_other_tools() -> None:
    """The document has a format tag and a summary: the score, the per-evaluator means, and the failed cases."""
    document = json.loads(report_to_json(_report(fail_travel=True)))
    assert document["format"] == "helikon-eval-report/1"
    assert document["summary"]["failed"] == ["travel"] and document["summary"]["passed"] is False
    assert document["summary"]["scores"] == {"contains": 1.0, "tools": 1.0, "exact": 0.0}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{nope", "not JSON"),
        ('{"format": "other"}', "not an eval report: expected format 'helikon-eval-report/1', got 'other'"),
        ('{"format": "helikon-eval-report/1", "dataset": "d"}', "a field is missing or malformed (KeyError: 'agent')"),
        (
            '{"format": "helikon-eval-report/1", "dataset": "d", "agent": "a", "repeat": 1, "min_pass_rate": 1,'
            ' "cases": [], "changes": [{"case": "c", "evaluator": null, "before": "1", "after": 0, "kind": "worse"}]}',
            "before must be a number, got '1'",
        ),
    ],
)
def test_bad_json_is_a_report_format_error(text: str, message: str) -> None:
    """What is not a report is refused with a `ReportFormatError` saying what is wrong."""
    with pytest.raises(ReportFormatError) as info:
        report_from_json(text)
    assert message in str(info.value)


def test_the_html_page_escapes_all_data() -> None:
    """Markup in a case's name, input, expected output, metadata, the agent's name, the output and the error shows as
    text: the page holds no tag but its own."""
    cases = [
        Case(name=HOSTILE, input=HOSTILE, expected_output=HOSTILE, metadata={"note": HOSTILE}),
    ]
    report = run_eval_sync(failing_agent(HOSTILE), Dataset(cases=cases, name=HOSTILE), virtual_time=True)
    page = format_html(report)
    assert "<script>" not in page and "&amp;amp;" in page
    assert page.count("&lt;script&gt;") >= 4
    assert page.startswith("<!DOCTYPE html>") and "<link" not in page and "src=" not in page
    ok = _report()
    assert "<script" not in format_html(attrs.evolve(ok, agent=HOSTILE))


def test_the_html_page_shows_the_failing_case_s_trajectory() -> None:
    """A failing case's section lists its agents, its tool calls with their arguments, its output and its verdicts."""
    page = format_html(_report(fail_travel=True))
    assert "<h2>Failed: travel</h2>" in page
    assert "<code>budget: lookup({&quot;category&quot;: &quot;travel&quot;})</code>" in page
    assert "expected &#x27;no&#x27;, got &#x27;The budget is $200.&#x27;" in page
    assert "Failed: dining" not in page


def test_the_table_has_a_row_per_case_and_the_failures_reasons() -> None:
    """One row per case with each evaluator's score ('-' where it does not apply), the means, then each failing
    repetition's reason and the verdict."""
    table = format_table(_report(fail_travel=True))
    lines = table.splitlines()
    assert lines[0].split() == ["CASE", "PASS", "contains", "tools", "exact"]
    assert lines[1].split() == ["dining", "ok", "2/2", "1.00", "1.00", "-"]
    assert lines[2].split() == ["travel", "FAIL", "0/2", "1.00", "-", "0.00"]
    assert "  #0 exact: expected 'no', got 'The budget is $200.'" in table
    assert lines[-1] == "FAILED: 1/2 cases passed, score 0.75"


def test_a_baseline_flags_regressions_and_improvements_per_case_and_evaluator() -> None:
    """From passing to failing: the case and its evaluator regress; the other way round, both improve; the same
    report against itself: no change."""
    good, bad = _report(), _report(fail_travel=True)
    regressions = compare(good, bad)
    assert [(c.case, c.evaluator, c.before, c.after, c.kind) for c in regressions] == [
        ("travel", None, 1.0, 0.0, "regression"),
        ("travel", "exact", 1.0, 0.0, "regression"),
    ]
    assert {c.kind for c in compare(bad, good)} == {"improvement"}
    assert compare(good, good) == ()
    flagged = bad.with_baseline(good)
    assert flagged.regressions == regressions and not flagged.passed
    assert "  REGRESSION  travel / exact: 1.00 -> 0.00" in format_table(flagged)
    assert '<tr class="regression"><td>regression</td><td>travel</td><td>exact</td>' in format_html(flagged)


def test_a_case_new_since_the_baseline_is_not_a_change() -> None:
    """Cases (and evaluators) the baseline does not have are compared with nothing."""
    good = _report()
    fewer = attrs.evolve(good, cases=good.cases[:1])
    assert compare(fewer, _report(fail_travel=True)) == ()


def test_assert_report_says_what_failed() -> None:
    """`assert_report` passes a good report back; on a bad one its message names the failing cases and the score
    below the minimum, followed by the table."""
    good = _report()
    assert assert_report(good) is good
    bad = _report(fail_travel=True)
    with pytest.raises(AssertionError) as info:
        assert_report(bad)
    assert str(info.value).startswith("eval of budget on dataset: 1 case(s) failed: travel\nCASE")
    assert assert_report(bad, min_score=0.7) is bad
    with pytest.raises(AssertionError, match=r"score 0.750 < min_score 0.9"):
        assert_report(bad, min_score=0.9)


def test_assert_dataset_runs_in_virtual_time() -> None:
    """`assert_dataset` runs the eval (in virtual time: a 500-second model call costs nothing) and asserts it."""
    dataset = Dataset(cases=[Case(name="c", input="budget for dining", expected_output="The budget is $300.")])
    report = assert_dataset(budget_agent(latency=lambda _: 500.0), dataset, timeout=2000)
    assert report.cases[0].repetitions[0].elapsed == pytest.approx(1000.0)


async def test_run_eval_sync_inside_trio_says_to_await_run_eval(autojump_clock: trio.testing.MockClock) -> None:
    """Calling the sync runner from inside trio is refused with the async way to do it."""
    with pytest.raises(RuntimeError, match=r"run_eval_sync\(\) starts its own trio.run.*await run_eval"):
        run_eval_sync(budget_agent(), Dataset(cases=[Case(name="c", input="x")]))
    report = await run_eval(budget_agent(), Dataset(cases=[Case(name="c", input="budget for travel")]))
    assert report.cases[0].repetitions[0].output == "The budget is $200."
