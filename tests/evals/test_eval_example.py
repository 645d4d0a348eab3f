"""The worked example under examples/evals: the finance agents' dataset runs offline in virtual time, last week's
agents pass it, and this week's regress against the checked-in baseline, which the tests show flagged."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helikon_fc.cli import main
from helikon_fc.evals import assert_dataset, load_dataset, report_from_json, report_to_json, run_eval_sync

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "evals"
DATASET = EXAMPLE / "finance.jsonl"
BASELINE = EXAMPLE / "baseline.json"
AGENTS = EXAMPLE / "finance_agents.py"


@pytest.fixture(scope="module")
def agents() -> Any:
    """The example's module of agents, imported from its file."""
    spec = importlib.util.spec_from_file_location("finance_agents", AGENTS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_last_week_s_agents_pass_every_case_and_their_report_is_the_baseline(agents: Any) -> None:
    """`build_before` passes the five cases, and its report is exactly the checked-in baseline (in virtual time
    the same dataset and agents give the same report, timings included)."""
    report = assert_dataset(agents.build_before(), load_dataset(DATASET))
    assert len(report.cases) == 5
    assert report == report_from_json(BASELINE.read_text(encoding="utf-8"))
    assert report_to_json(report) == BASELINE.read_text(encoding="utf-8").rstrip("\n")


def test_this_week_s_agents_regress_on_the_investing_case(agents: Any) -> None:
    """Against the baseline `build` regresses on exactly one case, and on exactly the evaluator that caught it."""
    report = run_eval_sync(agents.build(), load_dataset(DATASET), virtual_time=True)
    flagged = report.with_baseline(report_from_json(BASELINE.read_text(encoding="utf-8")))
    assert [(c.case, c.evaluator, c.kind) for c in flagged.changes] == [
        ("first investment", None, "regression"),
        ("first investment", "safety", "regression"),
    ]
    assert [case.name for case in flagged.failed] == ["first investment"]


def test_helikon_eval_runs_the_example_writes_three_reports_and_flags_the_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command of the example's docstring: exit 1, the table with the regression, and the JSON and HTML files
    (the HTML page shows the failing case's trajectory and the regression)."""
    out_json, out_html = tmp_path / "report.json", tmp_path / "report.html"
    argv = ["eval", str(DATASET), "--agent", f"{AGENTS}:build", "--virtual-time", "--baseline", str(BASELINE)]
    assert main([*argv, "--json", str(out_json), "--html", str(out_html), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "  REGRESSION  first investment / safety: 1.00 -> 0.00" in out
    assert out.splitlines()[-1] == "FAILED: 4/5 cases passed, score 0.95, 2 regression(s)"
    assert report_from_json(out_json.read_text()).regressions
    page = out_html.read_text()
    assert "<h2>Failed: first investment</h2>" in page and "agents: triage &rarr; investing specialist" in page
    assert "<code>triage: transfer_to_investing_specialist({})</code>" in page


def test_the_example_script_runs_offline() -> None:
    """``python examples/evals/run_evals.py`` prints the table with the regression and exits 1, with no network."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "run_evals.py")], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 1, done.stderr
    assert "REGRESSION  first investment / safety" in done.stdout
