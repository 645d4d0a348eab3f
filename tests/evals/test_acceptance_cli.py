"""Acceptance of issue 27 §2 through `helikon eval`, as a new user drives it: malformed datasets, repetitions,
concurrency, baselines, the HTML page, timeouts and exceptions, cost budgets without prices."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from helikon_fc.cli import main
from helikon_fc.evals import report_from_json

TARGETS = Path(__file__).with_name("acceptance_targets.py")
RIGHT = "The budget is $300."


def _dataset(tmp_path: Path, *lines: Mapping[str, object] | str, name: str = "cases.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def _eval(dataset: Path, agent: str, *extra: str) -> list[str]:
    return ["eval", str(dataset), "--agent", f"{TARGETS}:{agent}", "--virtual-time", *extra]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (['{"name": "a", "input": "q"}', '{"name": "b", "input": '], "line 2"),
        (['{"name": "a", "input": "q", "expected_calls": "lookup"}'], "line 1, field 'expected_calls'"),
        (['{"name": "a", "input": "q", "calls_match": "sometimes"}'], "line 1, field 'calls_match'"),
        (['{"name": "a", "input": "q", "evaluators": [{"nonsense": 1}]}'], "line 1, field 'evaluators"),
        (['["not", "an", "object"]'], "line 1"),
    ],
)
def test_a_malformed_jsonl_names_the_line_and_field_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str], expected: str
) -> None:
    """Broken JSON, a field of the wrong type, an unknown evaluator: exit 2, one message naming the file,
    the line (and the field), never a traceback."""
    with pytest.raises(SystemExit) as info:
        main(_eval(_dataset(tmp_path, *lines), "flaky"))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "cases.jsonl" in err and expected in err, err


def test_repeat_3_shows_the_pass_rate_and_the_disagreeing_repetition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--repeat 3 on an agent wrong once in three: the case fails at the default pass rate, the table shows
    2/3 and names repetition #1; the JSON says which repetition disagrees; --min-pass-rate 0.6 passes it."""
    dataset = _dataset(tmp_path, {"name": "dining", "input": "budget for dining", "expected_output": RIGHT})
    out = tmp_path / "r.json"
    argv = _eval(dataset, "flaky", "--repeat", "3", "--concurrency", "1", "--quiet")
    assert main([*argv, "--json", str(out)]) == 1
    table = capsys.readouterr().out
    assert re.search(r"dining\s+FAIL 2/3", table), table
    report = report_from_json(out.read_text())
    (odd,) = report.cases[0].disagreeing
    assert sorted(rep.passed for rep in report.cases[0].repetitions) == [False, True, True]
    assert not report.cases[0].repetitions[odd].passed
    assert f"#{odd} exact: expected 'The budget is $300.', got 'wrong'" in table
    assert main([*argv, "--min-pass-rate", "0.6"]) == 0
    assert re.search(r"dining\s+ok 2/3", capsys.readouterr().out)


def _scores(path: Path) -> list[tuple[str, bool, list[tuple[str, float]]]]:
    report = report_from_json(path.read_text())
    return [
        (case.name, case.passed, [(v.evaluator, v.score) for rep in case.repetitions for v in rep.results])
        for case in report.cases
    ]


def test_concurrency_1_and_8_give_the_same_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Cases finishing in another order under more concurrency score the same, in the dataset's order."""
    cases = [
        {"name": f"c{index}", "input": "x" * index, "evaluators": [{"contains": "x" * 3}]} for index in range(1, 10)
    ]
    dataset = _dataset(tmp_path, *cases)
    one, eight = tmp_path / "one.json", tmp_path / "eight.json"
    main([*_eval(dataset, "echo", "--concurrency", "1", "--quiet", "--repeat", "2"), "--json", str(one)])
    main([*_eval(dataset, "echo", "--concurrency", "8", "--quiet", "--repeat", "2"), "--json", str(eight)])
    capsys.readouterr()
    assert _scores(one) == _scores(eight)
    assert [name for name, _, _ in _scores(one)] == [f"c{index}" for index in range(1, 10)]
    assert [passed for _, passed, _ in _scores(one)] == [False, False] + [True] * 7


def test_an_eval_against_its_own_baseline_flags_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json, then --baseline on the same agent and dataset (a failing case included): no regression, no
    improvement, and the exit status is the cases' own."""
    dataset = _dataset(
        tmp_path,
        {"name": "ok", "input": "budget for dining", "expected_output": RIGHT},
        {"name": "bad", "input": "budget for travel", "expected_output": "nope"},
    )
    before = tmp_path / "before.json"
    assert main([*_eval(dataset, "flaky", "--quiet", "--min-pass-rate", "0"), "--json", str(before)]) == 0
    capsys.readouterr()
    assert main([*_eval(dataset, "flaky", "--quiet", "--min-pass-rate", "0"), "--baseline", str(before)]) == 0
    out = capsys.readouterr().out
    assert "REGRESSION" not in out and "IMPROVEMENT" not in out and "regression(s)" not in out


def test_the_html_page_is_self_contained_and_escapes_a_script_in_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An answer holding `<script>` is shown as text: the page has no script element, loads nothing from
    elsewhere (no URL, no link, no external resource), and shows the failing case's trajectory."""
    evil = "<script>alert('x')</script> & <img src=https://evil.example/a.png>"
    dataset = _dataset(tmp_path, {"name": "evil <b>case</b>", "input": evil, "expected_output": "no"})
    page = tmp_path / "r.html"
    assert main([*_eval(dataset, "echo", "--quiet"), "--html", str(page)]) == 1
    html = page.read_text()
    assert "<script" not in html.lower() and "<img" not in html.lower() and "<link" not in html.lower()
    assert not re.search(r"<[^>]*\s(src|href)\s*=", html, re.IGNORECASE)
    assert not re.search(r"https?://(?!evil\.example)", html)
    assert "&lt;script&gt;" in html and "evil &lt;b&gt;case&lt;/b&gt;" in html
    assert "@import" not in html and "url(" not in html


def test_a_case_past_its_timeout_fails_and_the_others_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--timeout 10 on a case whose model takes 30 s: that case fails saying it timed out, exit 1, and the
    other case passes (in virtual time: the test takes no real time)."""
    dataset = _dataset(
        tmp_path,
        {"name": "fast", "input": "quick", "expected_output": RIGHT},
        {"name": "slow", "input": "slow one", "expected_output": RIGHT},
    )
    out = tmp_path / "r.json"
    assert main([*_eval(dataset, "slow", "--timeout", "10", "--quiet"), "--json", str(out)]) == 1
    table = capsys.readouterr().out
    report = report_from_json(out.read_text())
    assert [case.passed for case in report.cases] == [True, False]
    failed = report.cases[1].repetitions[0]
    assert failed.error is not None and "time" in failed.error.lower(), failed.error
    assert "slow" in table and "FAILED: 1/2 cases passed" in table


def test_an_agent_raising_an_exception_fails_its_case_not_the_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Python exception in the agent's code: its case fails with the exception as the reason, the others
    are scored, and the eval reports (exit 1) instead of crashing."""
    dataset = _dataset(
        tmp_path,
        {"name": "boom", "input": "boom", "expected_output": RIGHT},
        {"name": "fine", "input": "fine", "expected_output": RIGHT},
    )
    out = tmp_path / "r.json"
    assert main([*_eval(dataset, "raising", "--quiet"), "--json", str(out)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    report = report_from_json(out.read_text())
    assert [case.passed for case in report.cases] == [False, True]
    error = report.cases[0].repetitions[0].error
    assert error is not None and "boom in the model code" in error
    assert "boom in the model code" in captured.out


def test_a_cost_budget_without_prices_fails_with_a_clear_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """{"max_usd": ...} on a model with no known price: the verdict fails naming the unpriced model; no crash."""
    dataset = _dataset(tmp_path, {"name": "cost", "input": "budget", "evaluators": [{"max_usd": "0.01"}]})
    assert main(_eval(dataset, "flaky", "--quiet")) == 1
    out = capsys.readouterr().out
    assert "flaky-sim" in out and "price" in out.lower(), out


@pytest.mark.parametrize("option", ["--json", "--html"])
def test_a_report_into_a_missing_folder_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """--json/--html into a folder that does not exist is a bad argument (exit 2, named) found before the
    eval runs — not after an hour of model calls."""
    dataset = _dataset(tmp_path, {"name": "dining", "input": "budget for dining", "expected_output": RIGHT})
    target = tmp_path / "missing" / "report.out"
    with pytest.raises(SystemExit) as info:
        main([*_eval(dataset, "flaky"), option, str(target)])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert f"{option} {target}" in captured.err and "does not exist" in captured.err
    assert captured.out == "" and "dining" not in captured.err


def test_a_dataset_saved_with_a_byte_order_mark_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A JSONL saved by an editor that writes a UTF-8 byte order mark reads as the same cases."""
    path = tmp_path / "bom.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"name": "dining", "input": "budget", "expected_output": RIGHT}).encode()
    )
    assert main(_eval(path, "flaky", "--quiet")) == 0
    assert "PASSED: 1/1" in capsys.readouterr().out
