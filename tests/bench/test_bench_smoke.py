"""`nox -s bench -- --quick` in miniature, in every default `nox` run: each scenario of helikon_fc and of
both floors runs and follows the shared script, and the runner renders a report. Nothing about time is
asserted (CI machines are shared and noisy); a scenario that breaks its script raises `ScriptError`.

The peers are not here: they are installed only by ``nox -s bench`` (the ``bench`` extra).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from bench.libraries import S1_IN_A_NURSERY, S2_SIMULATOR, S4_CHANNEL
from bench.measure import Budget
from bench.scenarios import Options, Scenario

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("helikon", "floor_trio", "floor_asyncio")
SMALLEST = Options(quick=True, budget=Budget(warmup_s=0.0, batch_s=0.0, batches=1))
"""The quick run's scripts (its small fan-outs) with the least timing: three warm-up runs and one batch of one."""


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"bench.scenarios.{name}")


CASES = [(name, scenario) for name in MODULES for scenario in sorted(_module(name).SCENARIOS)]


@pytest.mark.parametrize(("module", "scenario"), CASES, ids=[f"{m}-{s}" for m, s in CASES])
def test_every_scenario_runs_its_script(module: str, scenario: str) -> None:
    """The scenario runs to the end (its script checked on every run) and returns a JSON result the runner reads."""
    run: Scenario = _module(module).SCENARIOS[scenario]
    result = run(SMALLEST)
    assert json.loads(json.dumps(result)) == result
    assert result  # every scenario reports something: batches, a fan-out, graphs or calls


def test_the_variants_the_targets_need_are_measured() -> None:
    """S1 through a nursery (trio floor), S2 through the simulator (helikon_fc) and S4 through a channel (trio
    floor) come back beside their scenario, each with its batches."""
    floor, helikon = _module("floor_trio").SCENARIOS, _module("helikon").SCENARIOS
    variants = {
        S1_IN_A_NURSERY: floor["S1"](SMALLEST),
        S2_SIMULATOR: helikon["S2"](SMALLEST),
        S4_CHANNEL: floor["S4"](SMALLEST),
    }
    for name, result in variants.items():
        measured = result["variants"]
        assert isinstance(measured, dict)
        assert len(measured[name]["us"]) == 1, name


def test_the_runner_runs_pairs_in_fresh_interpreters_and_writes_the_report(tmp_path: Path) -> None:
    """``python -m bench --quick`` on a subset exits 0, logs every pair as ok and renders the targets table."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT / "src"), str(ROOT)))}
    subset = ("--libs", "helikon_fc,trio-floor", "--scenarios", "S1", "--results", str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", *subset],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    results = [r for r in records if r["type"] == "result"]
    assert {(r["lib"], r["scenario"]) for r in results} == {("helikon_fc", "S1"), ("trio-floor", "S1")}
    assert all(r["ok"] for r in results), results
    assert "S1 one-turn run <= 3x the trio floor's through a nursery" in (tmp_path / "latest.md").read_text()
