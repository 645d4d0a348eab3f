"""The proof: the crash scenario killed with SIGKILL in a subprocess — after each record write in turn
and at random moments — and resumed in a fresh process ends exactly as the uninterrupted run, on
SQLite and on PostgreSQL (a server the tests start). See `crash_trials` for what each trial checks."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.durable.crash_trials import check_trial, count_writes, plan, run_trials, stored_logs
from tests.stores.conftest import fresh_database
from tests.stores.postgres_server import PostgresServer

TRIALS = int(os.environ.get("HELIKON_FC_CRASH_TRIALS", "100"))
"""Trials per backend (at least 100 in CI; set the variable for more)."""
SHARDS = 4
"""The trials of a backend are split into this many tests (each with its own baseline run), so that
``pytest -n`` spreads them over its workers instead of one test holding a worker for minutes."""


def _trial_all(tmp_path: Path, shard: int, new_location: Callable[[str], str]) -> None:
    """Run and check shard `shard`'s trials (every SHARDS-th of the plan), each on a database of its own."""
    locations: dict[str, str] = {}

    def location(name: str) -> str:
        if name not in locations:
            locations[name] = new_location(name)
        return locations[name]

    trials = plan(count_writes(), TRIALS, seed=20261201)[shard::SHARDS]
    baseline = run_trials(trials, location, tmp_path)
    expected_log = stored_logs(location("baseline"))
    for trial in trials:
        name = f"t{trial.index}"
        check_trial(trial, tmp_path / name, location(name), baseline, expected_log)


def test_the_shards_together_run_every_trial() -> None:
    """The shards split the plan without leaving a trial out: TRIALS per backend in all."""
    trials = plan(count_writes(), TRIALS, seed=20261201)
    assert sorted(trial.index for shard in range(SHARDS) for trial in trials[shard::SHARDS]) == list(range(TRIALS))


@pytest.mark.parametrize("shard", range(SHARDS))
def test_sqlite_runs_survive_sigkill_at_every_boundary_and_at_random(tmp_path: Path, shard: int) -> None:
    """Every SIGKILLed-and-resumed trial on SQLite ends as the uninterrupted run."""
    _trial_all(tmp_path, shard, lambda name: str(tmp_path / f"{name}.db"))


@pytest.mark.parametrize("shard", range(SHARDS))
def test_postgres_runs_survive_sigkill_at_every_boundary_and_at_random(
    tmp_path: Path, shard: int, postgres_server: PostgresServer
) -> None:
    """Every SIGKILLed-and-resumed trial on PostgreSQL ends as the uninterrupted run."""
    _trial_all(tmp_path, shard, lambda name: fresh_database(postgres_server))
