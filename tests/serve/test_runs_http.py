"""Runs started, listed, read and streamed over HTTP, against the real app on a loopback port."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

from tests.serve import served_agents
from tests.serve.live_server import Message, collect, messages, served

from helikon_fc.serve import create_app
from helikon_fc.stores import SQLiteStore


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


async def test_a_workflow_s_envelopes_carry_the_path_of_the_emitting_agent(tmp_path: Path) -> None:
    """A sequential workflow's children emit under ``[pipeline, child]``; its own events under ``[pipeline]``."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            got = await collect(client, "POST", "/runs", json={"agent": "pipeline", "input": "hey"})
    paths = {(m.event, tuple(m.data["path"])) for m in got if m.id is not None}
    assert ("run_started", ("pipeline",)) in paths
    assert ("token_delta", ("pipeline", "echo")) in paths
    assert ("token_delta", ("pipeline", "recall")) in paths
    assert ("run_completed", ("pipeline",)) in paths
    texts = {tuple(m.data["path"]): m.data["event"]["item"]["text"] for m in got if m.event == "message_output"}
    assert texts[("pipeline", "echo")] == "echo: hey"
    assert texts[("pipeline", "recall")] == "1 user messages"


async def test_runs_in_one_session_share_its_history(tmp_path: Path) -> None:
    """A ``session_id`` keeps the conversation in the store: the second run of the session sees the first."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            body = {"agent": "recall", "input": "one", "session_id": "s"}
            first = await collect(client, "POST", "/runs", json=body)
            second = await collect(client, "POST", "/runs", json={**body, "input": "two"})
            alone = await collect(client, "POST", "/runs", json={"agent": "recall", "input": "three"})

    def answer(got: list[Message]) -> str:
        return str(next(m.data["event"]["item"]["text"] for m in got if m.event == "message_output"))

    assert [answer(first), answer(second), answer(alone)] == ["1 user messages", "2 user messages", "1 user messages"]


async def test_runs_are_listed_newest_first_and_filtered(tmp_path: Path) -> None:
    """``GET /runs?status=&agent=`` keeps the runs that match."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            for run_id, agent in (("a", "echo"), ("b", "cleaner"), ("c", "echo")):
                await collect(client, "POST", "/runs", json={"agent": agent, "input": "x", "run_id": run_id})
            every = (await client.get("/runs")).json()["runs"]
            echoes = (await client.get("/runs", params={"agent": "echo"})).json()["runs"]
            paused = (await client.get("/runs", params={"status": "paused"})).json()["runs"]
            none = (await client.get("/runs", params={"status": "failed"})).json()["runs"]
    assert [r["run_id"] for r in every] == ["c", "b", "a"]
    assert [r["run_id"] for r in echoes] == ["c", "a"]
    assert [(r["run_id"], r["status"]) for r in paused] == [("b", "paused")]
    assert none == []


async def test_a_server_shutting_down_refuses_new_runs_and_ends_live_streams(tmp_path: Path) -> None:
    """What SIGTERM starts (the hub's shutdown): the live stream ends with `end: interrupted`, and a new run,
    a decision or a resume is 503."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            await collect(client, "POST", "/runs", json={"agent": "cleaner", "input": "x", "run_id": "p"})
            await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": "s"})
            got: list[Message] = []
            async with client.stream("GET", "/runs/s/events") as response, aclosing(messages(response)) as stream:
                async for message in stream:
                    got.append(message)
                    if len(got) == 3:
                        await app.state.hub.shutdown()
            refused = [
                await client.post("/runs", json={"agent": "echo", "input": "x"}),
                await client.post(
                    "/runs/p/approvals", json={"decisions": [{"call_id": "wipe-1", "decision": "approve"}]}
                ),
                await client.post("/runs/s/resume"),
            ]
            status = (await client.get("/runs/s")).json()["run"]["status"]
    assert got[-1].data == {"status": "interrupted"}
    assert [r.status_code for r in refused] == [503, 503, 503]
    assert "shutting down" in refused[0].json()["error"]
    assert status == "interrupted"


async def test_a_failed_run_says_why_in_words(tmp_path: Path) -> None:
    """A run whose model fails ends with `run_failed` and `end: failed`; its summary's error is the failure
    in words (as the error prints), not a traceback."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            got = await collect(client, "POST", "/runs", json={"agent": "broken", "input": "x", "run_id": "f"})
            summary = (await client.get("/runs/f")).json()["run"]
    assert [m.event for m in got[-2:]] == ["run_failed", "end"]
    assert got[-1].data == {"status": "failed"}
    assert summary["status"] == "failed"
    assert summary["error"] == "model failed (other): the model is down"


async def test_an_agent_as_tool_sub_run_streams_nested_under_its_call(tmp_path: Path) -> None:
    """The events of an agent-as-tool call's sub-run (read back from the store) come between the call and its
    result, announced by `agent_updated`, under ``[caller, sub-agent]``; the turn then goes back to the caller."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            got = await collect(client, "POST", "/runs", json={"agent": "delegator", "input": "go", "run_id": "a1"})
            logged = (await client.get("/runs/a1")).json()["events"]
    stream = [(m.event, tuple(m.data["path"])) for m in got if m.id is not None]
    call = stream.index(("tool_call_item", ("delegator",)))
    result = stream.index(("tool_output_item", ("delegator",)))
    inner = stream[call + 1 : result]
    assert inner[0] == ("agent_updated", ("delegator", "helper"))
    assert inner[-1] == ("agent_updated", ("delegator",))
    assert ("token_delta", ("delegator", "helper")) in inner
    assert ("message_output", ("delegator", "helper")) in inner
    texts = [m.data["event"]["item"]["text"] for m in got if m.event == "message_output"]
    assert texts == ["helped with find it", "done: helped with find it"]
    assert [m.data for m in got[:-1]] == logged
    assert [m.id for m in got[:-1]] == list(range(1, len(got)))
