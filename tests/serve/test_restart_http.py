"""A server that dies (SIGKILL) or stops (SIGTERM) mid-run, restarted on the same SQLite file: the run is
interrupted, its logged events keep their positions, and it resumes to its end."""

from __future__ import annotations

import signal
from contextlib import aclosing
from pathlib import Path

import httpx2
import trio
from tests.serve import served_agents
from tests.serve.live_server import Message, collect, messages
from tests.serve.process import helikon_serve


async def _first_events(client: httpx2.AsyncClient, run_id: str, count: int) -> list[Message]:
    got: list[Message] = []
    async with client.stream("GET", f"/runs/{run_id}/events") as response, aclosing(messages(response)) as stream:
        async for message in stream:
            got.append(message)
            if len(got) == count:
                break
    return got


async def _resume_to_the_end(url: str, run_id: str, seen: list[Message]) -> list[Message]:
    """After a restart: the run is interrupted; it replays from Last-Event-ID, resumes and completes."""
    async with httpx2.AsyncClient(base_url=url, timeout=10) as client:
        summary = (await client.get(f"/runs/{run_id}")).json()["run"]
        assert summary["status"] == "interrupted"
        last = seen[-1].id
        logged = await collect(client, "GET", f"/runs/{run_id}/events", headers={"last-event-id": str(last)})
        assert logged[-1].data == {"status": "interrupted"}
        so_far = seen + logged[:-1]
        assert (await client.post(f"/runs/{run_id}/resume")).status_code == 202
        rest = await collect(client, "GET", f"/runs/{run_id}/events", headers={"last-event-id": str(so_far[-1].id)})
        whole = (await client.get(f"/runs/{run_id}")).json()
    assert rest[-1].data == {"status": "completed"}
    everything = so_far + rest[:-1]
    assert [m.id for m in everything] == list(range(1, len(everything) + 1))  # none lost, none twice
    assert [m.data for m in everything] == whole["events"]
    assert whole["run"]["status"] == "completed"
    return everything


async def test_a_killed_server_restarted_resumes_the_run(tmp_path: Path) -> None:
    """SIGKILL after five events; the restarted server lists the run as interrupted, serves its logged events
    after Last-Event-ID, and resumes it: the positions run on from the last logged one."""
    db = tmp_path / "runs.db"
    async with helikon_serve(db, tmp_path / "first.log") as server:
        async with httpx2.AsyncClient(base_url=server.url, timeout=10) as client:
            await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": "k1"})
            seen = await _first_events(client, "k1", 5)
        server.process.kill()
        await server.process.wait()
    async with helikon_serve(db, tmp_path / "second.log") as server:
        everything = await _resume_to_the_end(server.url, "k1", seen)
    started = [m for m in everything if m.event == "run_started"]
    assert len(started) == 2  # the resumed stretch starts with a fresh RunStarted
    assert everything[-1].event == "run_completed"


async def test_sigterm_ends_every_stream_and_leaves_the_run_resumable(tmp_path: Path) -> None:
    """SIGTERM mid-run: the live stream's last message is `end` with status interrupted, the process exits 0,
    and a restarted server resumes the run to its end."""
    db = tmp_path / "runs.db"
    async with helikon_serve(db, tmp_path / "first.log") as server:
        async with httpx2.AsyncClient(base_url=server.url, timeout=10) as client:
            await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": "t1"})
            got: list[Message] = []
            async with client.stream("GET", "/runs/t1/events") as response, aclosing(messages(response)) as stream:
                async for message in stream:
                    got.append(message)
                    if len(got) == 4:
                        server.process.send_signal(signal.SIGTERM)
        with trio.fail_after(15):
            assert await server.process.wait() == 0, server.stderr.read_text()
    assert got[-1].event == "end" and got[-1].data == {"status": "interrupted"}
    assert len([m for m in got if m.event == "token_delta"]) < served_agents.SLOW_WORDS
    assert "interrupted" in server.stderr.read_text() or "stopping" in server.stderr.read_text()
    async with helikon_serve(db, tmp_path / "second.log") as server:
        await _resume_to_the_end(server.url, "t1", got[:-1])
