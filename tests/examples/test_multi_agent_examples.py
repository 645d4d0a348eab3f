"""The multi-agent examples run offline, on the simulator, as ``python examples/<name>.py``."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
import trio

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


async def run_example(name: str) -> subprocess.CompletedProcess[bytes]:
    """Run an example in a fresh interpreter with no API key (so it must use the simulator)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
    return await trio.run_process(
        [sys.executable, str(EXAMPLES / name)], env=env, capture_stdout=True, capture_stderr=True, check=False
    )


EXPECTED = {
    "triage_handoff.py": [
        "  => handoff triage -> investing specialist",
        "  investing specialist: First keep three months of expenses as an emergency fund.",
        " - usage: 20 input + 10 output tokens, 2 model requests",
    ],
    "swarm_finance.py": [
        "  => handoff triage -> budgeting",
        "  active agent: budgeting",
        '  -> get_spending {"category":"dining"}',
        "  => handoff budgeting -> investing",
        "  investing: Automate a $160 monthly transfer into a broad index fund on payday.",
        " - usage: 40 input + 20 output tokens, 4 model requests",
    ],
    "graph_report.py": [
        "  summary: October: $4,900 in",
        "  finance_report: October: $4,900 in, $228.30 out on the card - a strong month.",
        "state keys: spending, income, summary",
    ],
    "research_pipeline.py": [
        "  active agent: researcher",
        '  -> lookup_rates {"product":"high-yield savings"}',
        "  researcher: High-yield savings pays 4.1% APY",
        "  writer: Keep your emergency fund",
        " - usage: 30 input + 15 output tokens, 3 model requests",
    ],
    "agent_as_tool.py": [
        '  -> summarizer {"input":"Rent 1,450.',
        "  <- - Housing is the biggest cost (1,450) - Dining (412) beats groceries (388) - 300 saved",
        "  writer: Your month in brief: rent dominates, dining outspends groceries, and you saved 300. Nice work.",
    ],
    "refine_loop.py": [
        "  drafter: Save money.",
        "  critic: Too vague: give an amount and a habit.",
        "  active agent: critic",
        "  -> approve {}",
        "final draft: Move $50 into savings every payday, automatically, before you can spend it.",
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_example_runs_offline_and_prints_its_story(name: str) -> None:
    """Each multi-agent example exits 0 without a key and prints, in order, the lines that tell its story, in
    the live view of ``helikon run`` (`helikon_fc.console.print_events`)."""
    done = await run_example(name)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode()
    position = 0
    for expected in EXPECTED[name]:
        found = out.find(expected, position)
        assert found >= 0, f"{expected!r} missing (in order) from:\n{out}"
        position = found + len(expected)
    assert done.stderr.decode().count("scripted simulator") == 1  # one note, however many agents
