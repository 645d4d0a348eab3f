"""`helikon eval` through `helikon_fc.cli.main`: the table on stdout, progress on stderr, the JSON and HTML reports,
exit statuses (0 passed, 1 a case failed or regressed, 2 bad input) and clear errors for bad input."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from helikon_fc.cli import main
from helikon_fc.evals import report_from_json

AGENTS = Path(__file__).with_name("cli_targets.py")


def _dataset(tmp_path: Path, *lines: Mapping[str, object]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


GOOD = {"name": "dining", "input": "budget for dining", "expected_output": "The budget is $300."}
BAD = {"name": "travel", "input": "budget for travel", "expected_output": "The budget is $1."}


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_a_passing_eval_exits_0_and_writes_both_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """All cases pass: exit 0, the table on stdout, a progress line per run on stderr, and the JSON and HTML files."""
    dataset = _dataset(tmp_path, GOOD)
    out_json, out_html = tmp_path / "r.json", tmp_path / "r.html"
    argv = ["eval", str(dataset), "--agent", f"{AGENTS}:budget", "--virtual-time", "--repeat", "2"]
    assert main([*argv, "--json", str(out_json), "--html", str(out_html)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == "PASSED: 1/1 cases passed, score 1.00"
    progress = captured.err.splitlines()
    assert sorted(line.split(" ", 2)[2] for line in progress) == ["dining #0 pass", "dining #1 pass"]
    assert [line.split()[1] for line in progress] == ["[1/2]", "[2/2]"]
    report = report_from_json(out_json.read_text())
    assert report.passed and report.repeat == 2 and report.dataset == "cases"
    assert out_html.read_text().startswith("<!DOCTYPE html>")


def test_a_failing_case_exits_1_and_names_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One failing case: exit 1, and the table says which case and why."""
    dataset = _dataset(tmp_path, GOOD, BAD)
    assert main(["eval", str(dataset), "--agent", f"{AGENTS}:budget", "--virtual-time", "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "  #0 exact: expected 'The budget is $1.', got 'The budget is $200.'" in captured.out
    assert captured.err == ""


def test_a_regression_against_the_baseline_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A case that passed in the baseline and fails now is flagged, even with --min-pass-rate 0 (so no case fails)."""
    before = tmp_path / "before.json"
    argv = ["eval", "--agent", f"{AGENTS}:budget", "--virtual-time", "--quiet"]
    assert (
        main([*argv, str(_dataset(tmp_path, {**BAD, "expected_output": "The budget is $200."})), "--json", str(before)])
        == 0
    )
    capsys.readouterr()
    status = main([*argv, str(_dataset(tmp_path, BAD)), "--baseline", str(before), "--min-pass-rate", "0"])
    assert status == 1
    out = capsys.readouterr().out
    assert "  REGRESSION  travel / exact: 1.00 -> 0.00" in out and out.splitlines()[-1].endswith("1 regression(s)")


def test_a_python_dataset_by_module_and_attribute(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """DATASET may be MODULE:ATTRIBUTE naming a `Dataset` or a function returning one (evaluators in Python)."""
    for attribute in ("DATASET", "dataset"):
        assert main(["eval", f"{AGENTS}:{attribute}", "--agent", f"{AGENTS}:budget", "--virtual-time", "--quiet"]) == 0
        assert "polite" in capsys.readouterr().out


def test_runs_are_recorded_in_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With --store the failing run's id is printed with the command that shows it, and `helikon runs show` works."""
    store = tmp_path / "runs.db"
    argv = ["eval", str(_dataset(tmp_path, BAD)), "--agent", f"{AGENTS}:budget", "--virtual-time", "--quiet"]
    assert main([*argv, "--store", str(store)]) == 1
    out = capsys.readouterr().out
    run_id = out.split("[run ")[1].split("]")[0]
    assert f"inspect a run: helikon runs show RUN_ID --store {store}" in out
    assert main(["runs", "show", run_id, "--store", str(store), "--no-color"]) == 0
    assert "budget: The budget is $200." in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "{tmp}/missing.jsonl", "--agent", "{agents}:budget"], "DATASET: cannot read the dataset"),
        (
            ["eval", "{tmp}/bad.jsonl", "--agent", "{agents}:budget"],
            "DATASET: bad.jsonl line 1, field 'input': missing",
        ),
        (["eval", "{agents}:budget", "--agent", "{agents}:budget"], "DATASET: {agents}:budget is LlmAgent, not a"),
        (
            ["eval", "{tmp}/good.jsonl", "--agent", "{agents}:nothing"],
            "--agent {agents}:nothing: {agents} has no attribute 'nothing'",
        ),
        (
            ["eval", "{tmp}/good.jsonl", "--agent", "{agents}:budget", "--repeat", "0"],
            "--repeat: must be a whole number",
        ),
        (
            ["eval", "{tmp}/good.jsonl", "--agent", "{agents}:budget", "--timeout", "-1"],
            "--timeout: must be a positive",
        ),
        (["eval", "{tmp}/good.jsonl", "--agent", "{agents}:budget", "--min-pass-rate", "2"], "must be a number from 0"),
        (
            ["eval", "{tmp}/good.jsonl", "--agent", "{agents}:budget", "--baseline", "{tmp}/bad.jsonl"],
            "not an eval report",
        ),
        (["eval", "{tmp}/good.jsonl", "--agent", "{agents}:budget", "--baseline", "{tmp}/none.json"], "No such file"),
        (["eval", "{tmp}/good.jsonl"], "the following arguments are required: --agent"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    """Each bad argument exits 2 with a message naming it and what is wrong (never a traceback)."""
    (tmp_path / "good.jsonl").write_text(json.dumps(GOOD) + "\n")
    (tmp_path / "bad.jsonl").write_text('{"name": "x"}\n')
    filled = [part.format(tmp=tmp_path, agents=AGENTS) for part in argv]
    err = _usage_error(filled, capsys)
    assert message.format(tmp=tmp_path, agents=AGENTS) in err


def test_help_documents_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    """`helikon eval --help` says what each exit status means."""
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = capsys.readouterr().out
    assert "Exit status: 0 every case passed and nothing regressed against --baseline; 1 a case failed" in out


def test_a_store_that_cannot_open_is_one_line_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --store in a folder that does not exist: one line naming it, exit 1, and no case was run."""
    store = tmp_path / "missing" / "runs.db"
    argv = ["eval", str(_dataset(tmp_path, GOOD)), "--agent", f"{AGENTS}:budget", "--virtual-time"]
    assert main([*argv, "--store", str(store)]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"helikon eval: --store {store}: SQLite database") and "eval [" not in captured.err
    assert captured.out == ""
