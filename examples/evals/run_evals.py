"""Score this week's finance agents on the example dataset, in virtual time, against last week's report.

python examples/evals/run_evals.py             # offline: the simulator plays the models; prints the table
python examples/evals/run_evals.py report.html # ... and writes the HTML report there

The same as ``helikon eval examples/evals/finance.jsonl --agent examples/evals/finance_agents.py:build
--virtual-time --baseline examples/evals/baseline.json``: one case regresses (the investing specialist's
shorter instructions dropped the emergency fund), so it exits 1.
"""

from __future__ import annotations

import sys
from pathlib import Path

from finance_agents import build

from helikon_fc.evals import format_html, format_table, load_dataset, report_from_json, run_eval_sync

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    dataset = load_dataset(HERE / "finance.jsonl")
    baseline = report_from_json((HERE / "baseline.json").read_text(encoding="utf-8"))
    report = run_eval_sync(build(), dataset, virtual_time=True).with_baseline(baseline)
    print(format_table(report), end="")
    if argv:
        Path(argv[0]).write_text(format_html(report), encoding="utf-8")
    return 0 if report.passed else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
