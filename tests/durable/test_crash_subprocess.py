"""The proof: the crash scenario killed with SIGKILL in a subprocess — after each record write in turn
and at random moments — and resumed in a fresh process ends exactly as the uninterrupted run, on
SQLite and on PostgreSQL (a server the tests start). See `crash_trials` for what each trial checks."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tests.durable.crash_trials import check_trial, count_writes, plan, run_trials, stored_logs
from tests.stores.conftest import fresh_database
from tests.stores.postgres_server import PostgresServer

TRIALS = int(os.environ.get("HELIKON_FC_CRASH_TRIALS", "100"))
"""Trials per backend (at least 100 in CI; set the variable for more)."""


def _trial_all(tmp_path: Path, new_location: Callable[[str], str]) -> int:
    """Run and check the trials, each on a database of its own; how many there were."""
    locations: dict[str, str] = {}

    def location(name: str) -> str:
        if name not in locations:
            locations[name] = new_location(name)
        return locations[name]

    trials = plan(count_writes(), TRIALS, seed=20261201)
    baseline = run_trials(trials, location, tmp_path)
    expected_log = stored_logs(location("baseline"))
    for trial in trials:
        name = f"t{trial.index}"
        check_trial(trial, tmp_path / name, location(name), baseline, expected_log)
    return len(trials)


def test_sqlite_runs_survive_sigkill_at_every_boundary_and_at_random(tmp_path: Path) -> None:
    """Every SIGKILLed-and-resumed trial on SQLite ends as the uninterrupted run."""
    assert _trial_all(tmp_path, lambda name: str(tmp_path / f"{name}.db")) == TRIALS


def test_postgres_runs_survive_sigkill_at_every_boundary_and_at_random(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    """Every SIGKILLed-and-resumed trial on PostgreSQL ends as the uninterrupted run."""
    assert _trial_all(tmp_path, lambda name: fresh_database(postgres_server)) == TRIALS
