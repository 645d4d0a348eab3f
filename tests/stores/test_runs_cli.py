"""`helikon runs list|show --store PATH`: the recorded runs of a SQLite file or a Postgres DSN."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from tests.stores.conftest import Backend

from helikon_fc.cli import main
from helikon_fc.stores import RunRecord

LONG = '{"type": "model_call", "text": "' + "x" * 200 + '"}'


async def _record_two_runs(backend: Backend) -> None:
    async with backend.new_store() as store:
        await store.create_run("run-a", "triage")
        await store.append_run_records(
            "run-a", [RunRecord(0, "started", '{"input":  "hi"}'), RunRecord(1, "model_call", LONG)], "completed"
        )
        await store.create_run("run-b", "writer")


def test_list_prints_every_run_newest_first(sql_backend: Backend, capsys: pytest.CaptureFixture[str]) -> None:
    """`runs list` prints a header and one line per run (id, agent, status, records, last kind), newest first."""
    trio.run(_record_two_runs, sql_backend)
    assert main(["runs", "list", "--store", sql_backend.location]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["RUN", "AGENT", "STATUS", "RECORDS", "LAST"]
    assert [line.split()[:5] for line in lines[1:]] == [
        ["run-b", "writer", "running", "0", "-"],
        ["run-a", "triage", "completed", "2", "model_call"],
    ]
    assert all(line.endswith(" UTC") for line in lines[1:])


def test_show_prints_the_summary_and_each_record_shortened(
    sql_backend: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    """`runs show --records` prints the run's summary, then each record's seq, kind and compact JSON body, cut to
    100 characters unless `--full`."""
    trio.run(_record_two_runs, sql_backend)
    assert main(["runs", "show", "run-a", "--records", "--store", sql_backend.location]) == 0
    head, first, second = capsys.readouterr().out.splitlines()
    assert head.startswith("run run-a  agent triage  completed  2 records  created ")
    assert first.split(None, 2) == ["0", "started", '{"input":"hi"}']
    body = second.split(None, 2)[2]
    assert second.split()[:2] == ["1", "model_call"] and len(body) == 100 and body.endswith("…")
    assert main(["runs", "show", "run-a", "--full", "--store", sql_backend.location]) == 0
    assert capsys.readouterr().out.splitlines()[2].endswith("x" * 200 + '"}')


def test_an_unknown_run_or_store_exits_1_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run id not in the store, or a store file that does not exist, prints why on stderr and exits 1
    (and a missing file is not created)."""
    missing = tmp_path / "none.db"
    assert main(["runs", "list", "--store", str(missing)]) == 1
    assert "no store at" in capsys.readouterr().err and not missing.exists()
    empty = tmp_path / "empty.db"
    empty.touch()
    assert main(["runs", "list", "--store", str(empty)]) == 0
    assert capsys.readouterr().out == "no runs recorded\n"
    assert main(["runs", "show", "ghost", "--store", str(empty)]) == 1
    assert capsys.readouterr().err == f"helikon runs: no run 'ghost' in {str(empty)!r}\n"


def test_runs_without_an_action_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    """`helikon runs` alone prints the runs help and exits 2."""
    assert main(["runs"]) == 2
    assert "list" in capsys.readouterr().out
