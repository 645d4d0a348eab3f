"""Event streams that reconnect with Last-Event-ID mid-run, and runs cancelled over HTTP."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

import trio
from tests.serve import served_agents
from tests.serve.live_server import Message, collect, messages, served

from helikon_fc.serve import create_app
from helikon_fc.stores import SQLiteStore


async def test_a_reconnecting_client_gets_exactly_the_rest(tmp_path: Path) -> None:
    """A client drops after five events of a live run and reconnects with Last-Event-ID: 5; what it gets
    continues at 6, and both parts together are the run's events, none lost, none twice."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            run_id = (await client.post("/runs", json={"agent": "slow", "input": "go"})).json()["run_id"]
            first: list[Message] = []
            async with (
                client.stream("GET", f"/runs/{run_id}/events") as response,
                aclosing(messages(response)) as stream,
            ):
                async for message in stream:
                    first.append(message)
                    if len(first) == 5:
                        break
            rest = await collect(client, "GET", f"/runs/{run_id}/events", headers={"last-event-id": "5"})
            whole = (await client.get(f"/runs/{run_id}")).json()["events"]
    assert [m.id for m in first] == [1, 2, 3, 4, 5]
    assert rest[0].id == 6 and rest[-1].data == {"status": "completed"}
    assert [m.data for m in first + rest[:-1]] == whole
    deltas = [e["event"]["text"] for e in whole if e["event"]["type"] == "token_delta"]
    assert len(deltas) == served_agents.SLOW_WORDS


async def test_last_event_id_at_the_end_gives_only_the_end(tmp_path: Path) -> None:
    """A client that saw everything of a finished run gets no event again, only `end`."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            got = await collect(client, "POST", "/runs", json={"agent": "echo", "input": "a", "run_id": "r"})
            again = await collect(client, "GET", "/runs/r/events", headers={"last-event-id": str(got[-2].id)})
    assert [(m.event, m.data) for m in again] == [("end", {"status": "completed"})]


async def test_a_cancelled_run_ends_cancelled_and_cannot_be_cancelled_twice(tmp_path: Path) -> None:
    """POST /runs/{id}/cancel mid-stream: the stream's last event is RunFailed(Cancelled), then end: cancelled."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            got: list[Message] = []
            async with (
                client.stream(
                    "POST",
                    "/runs",
                    json={"agent": "slow", "input": "go", "run_id": "c1"},
                    headers={"accept": "text/event-stream"},
                ) as response,
                aclosing(messages(response)) as stream,
            ):
                async for message in stream:
                    got.append(message)
                    if message.event == "token_delta" and len(got) == 4:
                        cancelled = await client.post("/runs/c1/cancel")
            summary = (await client.get("/runs/c1")).json()["run"]
            twice = await client.post("/runs/c1/cancel")
    assert cancelled.status_code == 202
    assert got[-2].event == "run_failed" and got[-2].data["event"]["error"]["type"] == "cancelled"
    assert got[-1].data == {"status": "cancelled"}
    assert len([m for m in got if m.event == "token_delta"]) < served_agents.SLOW_WORDS
    assert summary["status"] == "cancelled" and summary["error"]
    assert twice.status_code == 409


async def test_health_counts_the_runs_under_way(tmp_path: Path) -> None:
    """/health says how many runs this process drives now."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": "h1"})
            await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": "h2"})
            during = (await client.get("/health")).json()
            await collect(client, "GET", "/runs/h1/events")
            await collect(client, "GET", "/runs/h2/events")
            await trio.sleep(0.05)  # the runs' tasks record their ends after the last event
            after = (await client.get("/health")).json()
    assert during == {"status": "ok", "active_runs": 2}
    assert after == {"status": "ok", "active_runs": 0}
