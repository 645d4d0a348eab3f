"""The cost at the end of ``helikon run`` and ``helikon demo``: the amount by agent, or which model has no price."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from helikon_fc.cli.demo import run_demo
from helikon_fc.cli.render import EventRenderer
from helikon_fc.core import ModelShare, RunCompleted, Usage
from helikon_fc.pricing import Price, Prices

ROOT = Path(__file__).resolve().parents[2]
TRIAGE = Usage(input_tokens=200, output_tokens=100, requests=1)
BILLING = Usage(input_tokens=300, output_tokens=300, requests=1)


def done_line(completed: RunCompleted, prices: Prices | None) -> str:
    out = io.StringIO()
    EventRenderer(out, prices=prices).render(completed)
    return out.getvalue()


def test_the_done_line_says_what_the_run_cost_by_agent() -> None:
    """With prices, the final line ends with the total and each agent's share."""
    completed = RunCompleted(
        TRIAGE + BILLING, (), (ModelShare("billing", "m", BILLING), ModelShare("triage", "m", TRIAGE))
    )
    line = done_line(completed, Prices({"m": Price(input="1", output="2")}))
    assert line.endswith("tokens, 2 model requests - cost: $0.0013 (billing $0.00090, triage $0.00040)\n")


def test_the_done_line_says_which_model_has_no_price() -> None:
    """A model the table does not know is named instead of a number; without a table nothing is said."""
    completed = RunCompleted(TRIAGE, (), (ModelShare("triage", "scripted", TRIAGE),))
    assert done_line(completed, Prices({})).endswith("1 model request - cost: no price for 'scripted'\n")
    assert "cost" not in done_line(completed, None)


def test_the_demo_says_its_simulated_models_have_no_price() -> None:
    """The demo's models are the simulator's: its runs end saying they have no price, not $0."""
    out = io.StringIO()
    assert run_demo(out, fast=True, only=("triage",)) == 0
    assert "2 model requests - cost: no price for 'investing', 'triage'" in out.getvalue()


def test_helikon_run_ends_with_the_cost() -> None:
    """``helikon run`` prints the cost after the usage (the example's scripted model has no price)."""
    done = subprocess.run(
        [sys.executable, "-m", "helikon_fc", "run", "examples/triage_handoff.py:triage", "How should I invest?"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("2 model requests - cost: no price for 'scripted'")
