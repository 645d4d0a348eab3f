"""Runs started, listed, read and streamed over HTTP, against the real app on a loopback port."""

from __future__ import annotations

from pathlib import Path

from helikon_fc.serve import create_app
from helikon_fc.stores import SQLiteStore
from tests.serve import served_agents
from tests.serve.http import collect, served


async def test_a_streamed_run_gives_positions_one_by_one_and_ends(tmp_path: Path) -> None:
    """POST /runs with Accept: text/event-stream streams the run: ids 1..n, envelopes, then `end`."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            got = await collect(client, "POST", "/runs", json={"agent": "echo", "input": "hi there", "run_id": "r1"})
    *events, end = got
    assert [m.id for m in events] == list(range(1, len(events) + 1))
    assert [m.data["position"] for m in events] == [m.id for m in events]
    assert events[0].event == "run_started" and events[0].data["event"] == {
        "type": "run_started",
        "agent": "echo",
        "run_id": "r1",
    }
    assert events[-1].event == "run_completed"
    assert "".join(m.data["event"]["text"] for m in events if m.event == "token_delta") == "echo: hi there"
    assert all(m.data["path"] == ["echo"] for m in events)
    assert (end.event, end.data, end.id) == ("end", {"status": "completed"}, None)


async def test_a_run_started_without_streaming_is_listed_read_and_replayed(tmp_path: Path) -> None:
    """202 with the run id at once; GET /runs/{id}/events replays the whole run; GET /runs and /runs/{id}
    describe it; /health counts no active run once it ended."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            started = await client.post("/runs", json={"agent": "echo", "input": "one"})
            assert started.status_code == 202
            run_id = started.json()["run_id"]
            streamed = await collect(client, "GET", f"/runs/{run_id}/events")
            listed = (await client.get("/runs")).json()["runs"]
            one = (await client.get(f"/runs/{run_id}")).json()
            health = (await client.get("/health")).json()
    assert streamed[-1].data == {"status": "completed"}
    assert [m.data for m in streamed[:-1]] == one["events"]
    assert [run["run_id"] for run in listed] == [run_id]
    summary = listed[0]
    assert (summary["agent"], summary["status"], summary["requests"], summary["error"]) == (
        "echo",
        "completed",
        1,
        None,
    )
    assert summary["started_at"].endswith("Z") and isinstance(summary["duration_ms"], int)
    assert one["run"] == summary and one["pending"] == []
    assert health == {"status": "ok", "active_runs": 0}
