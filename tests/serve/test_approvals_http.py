"""A run whose tool call needs a human pauses; decisions over HTTP resume it (or are refused with 409)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import trio
from tests.serve import served_agents
from tests.serve.live_server import Message, collect, served

from helikon_fc.serve import create_app
from helikon_fc.stores import SQLiteStore


async def _paused(client: httpx2.AsyncClient, run_id: str) -> list[Message]:
    got = await collect(client, "POST", "/runs", json={"agent": "cleaner", "input": "ship it", "run_id": run_id})
    assert got[-1].data == {"status": "paused"}
    return got


def _events(got: list[Message]) -> list[dict[str, object]]:
    return [m.data["event"] for m in got if m.id is not None]


async def test_an_approved_call_runs_and_the_run_completes(tmp_path: Path) -> None:
    """The paused run lists its waiting call; approving it resumes the run, whose events continue the positions."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            first = await _paused(client, "d1")
            one = (await client.get("/runs/d1")).json()
            decided = await client.post(
                "/runs/d1/approvals", json={"decisions": [{"call_id": "wipe-1", "decision": "approve"}]}
            )
            rest = await collect(client, "GET", "/runs/d1/events", headers={"last-event-id": str(first[-2].id)})
            final = (await client.get("/runs/d1")).json()
    assert one["run"]["status"] == "paused"
    assert one["pending"] == [{"call_id": "wipe-1", "tool": "Bash", "args": {"command": "rm -rf /"}}]
    assert (decided.status_code, decided.json()) == (202, {"run_id": "d1"})
    seen = first[-2].id
    assert seen is not None
    assert [m.id for m in rest[:-1]] == list(range(seen + 1, seen + len(rest)))
    assert rest[-1].data == {"status": "completed"}
    outputs = [e for e in _events(rest) if e["type"] == "tool_output_item"]
    assert [o["item"]["output"] for o in outputs] == ["ran rm -rf /"]  # type: ignore[index]
    assert final["run"]["status"] == "completed" and final["pending"] == []
    assert [e["position"] for e in final["events"]] == list(range(1, len(final["events"]) + 1))


async def test_an_approval_with_edited_arguments_runs_the_call_with_them(tmp_path: Path) -> None:
    """``arguments`` replace the call's: the tool runs on them."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            first = await _paused(client, "d2")
            decision = {"call_id": "wipe-1", "decision": "approve", "arguments": {"command": "rm -rf build/"}}
            assert (await client.post("/runs/d2/approvals", json={"decisions": [decision]})).status_code == 202
            rest = await collect(client, "GET", "/runs/d2/events", headers={"last-event-id": str(first[-2].id)})
    outputs = [e["item"]["output"] for e in _events(rest) if e["type"] == "tool_output_item"]  # type: ignore[index]
    assert outputs == ["ran rm -rf build/"]
    assert rest[-1].data == {"status": "completed"}


async def test_a_rejected_call_is_answered_with_the_reason(tmp_path: Path) -> None:
    """A rejection answers the call ``permission denied: <reason>`` and the run goes on to its answer."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            await _paused(client, "d3")
            decision = {"call_id": "wipe-1", "decision": "reject", "reason": "not on a Friday"}
            assert (await client.post("/runs/d3/approvals", json={"decisions": [decision]})).status_code == 202
            everything = await collect(client, "GET", "/runs/d3/events")
    outputs = [e["item"]["output"] for e in _events(everything) if e["type"] == "tool_output_item"]  # type: ignore[index]
    assert outputs == ["permission denied: not on a Friday"]
    assert everything[-1].data == {"status": "completed"}
    assert [m.id for m in everything[:-1]] == list(range(1, len(everything)))


async def test_a_decision_for_a_call_that_is_not_waiting_is_409(tmp_path: Path) -> None:
    """An unknown call id, or any decision for a run that is not paused, is a conflict; nothing resumes."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            await _paused(client, "d4")
            stranger = await client.post(
                "/runs/d4/approvals", json={"decisions": [{"call_id": "nope", "decision": "approve"}]}
            )
            still = (await client.get("/runs/d4")).json()["run"]["status"]
            await collect(client, "POST", "/runs", json={"agent": "echo", "input": "x", "run_id": "e1"})
            finished = await client.post(
                "/runs/e1/approvals", json={"decisions": [{"call_id": "c", "decision": "approve"}]}
            )
    assert stranger.status_code == 409
    assert "nope" in json.dumps(stranger.json()["problems"])
    assert still == "paused"
    assert finished.status_code == 409 and "completed" in finished.json()["error"]


async def test_two_decisions_at_once_resume_the_run_once(tmp_path: Path) -> None:
    """Two clients approve the same waiting call at the same moment: one is taken (202), the other is 409."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            await _paused(client, "d5")
            statuses: list[int] = []
            body = {"decisions": [{"call_id": "wipe-1", "decision": "approve"}]}

            async def approve() -> None:
                statuses.append((await client.post("/runs/d5/approvals", json=body)).status_code)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(approve)
                nursery.start_soon(approve)
            everything = await collect(client, "GET", "/runs/d5/events")
    assert sorted(statuses) == [202, 409]
    assert everything[-1].data == {"status": "completed"}
    assert len([m for m in everything if m.event == "run_completed"]) == 1


async def test_a_run_paused_before_a_restart_is_decided_after_it(tmp_path: Path) -> None:
    """The server that paused the run stops; a new one on the same SQLite file lists it as paused with its
    waiting call, takes the decision and continues the positions where the first left them."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            first = await _paused(client, "d6")
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            one = (await client.get("/runs/d6")).json()
            body = {"decisions": [{"call_id": "wipe-1", "decision": "approve"}]}
            assert (await client.post("/runs/d6/approvals", json=body)).status_code == 202
            seen = first[-2].id
            assert seen is not None
            rest = await collect(client, "GET", "/runs/d6/events", headers={"last-event-id": str(seen)})
    assert one["run"]["status"] == "paused"
    assert [call["call_id"] for call in one["pending"]] == ["wipe-1"]
    assert [m.data for m in first[:-1]] == one["events"]
    assert rest[0].id == seen + 1 and rest[-1].data == {"status": "completed"}
    assert [e["item"]["output"] for e in _events(rest) if e["type"] == "tool_output_item"] == ["ran rm -rf /"]  # type: ignore[index]
