"""Issue 26 §1 on a real ``helikon serve`` process: the token from the environment, the loopback rule said
out loud, and SIGTERM ending every open stream with a final `end`."""

from __future__ import annotations

import signal
from contextlib import aclosing
from pathlib import Path

import httpx2
import pytest
import trio
from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    TextMessageContentEvent,
    UserMessage as AgUiUserMessage,
)
from tests.serve import served_agents
from tests.serve.live_server import Message, messages
from tests.serve.process import helikon_serve
from tests.serve.test_ag_ui_support import EVENT, stream_problems

from helikon_fc.serve import create_app, serve
from helikon_fc.stores import SQLiteStore


async def test_the_token_comes_from_the_environment(tmp_path: Path) -> None:
    """``HELIKON_SERVE_TOKEN`` guards every endpoint but /health (the AG-UI one too), as ``--token`` does."""
    async with helikon_serve(
        tmp_path / "runs.db", tmp_path / "serve.log", environ={"HELIKON_SERVE_TOKEN": "env-tok"}
    ) as server:
        async with httpx2.AsyncClient(base_url=server.url, timeout=10) as client:
            bare = await client.get("/runs")
            wrong = await client.get("/runs", headers={"authorization": "Bearer tok"})
            ag_ui = await client.post("/ag-ui/echo", json={})
            good = await client.post(
                "/runs", json={"agent": "echo", "input": "x"}, headers={"authorization": "Bearer env-tok"}
            )
            health = await client.get("/health")
    assert (bare.status_code, wrong.status_code, ag_ui.status_code) == (401, 401, 401)
    assert good.status_code == 202 and health.status_code == 200
    assert "loopback" not in server.stderr.read_text()  # with a token there is no loopback warning


async def test_without_a_token_it_says_it_serves_loopback_only(tmp_path: Path) -> None:
    """No token: the server says, on stderr, that it listens on loopback only."""
    async with helikon_serve(tmp_path / "runs.db", tmp_path / "serve.log") as server:
        async with httpx2.AsyncClient(base_url=server.url, timeout=10) as client:
            assert (await client.get("/runs")).status_code == 200
    assert "no token: serving on loopback only" in server.stderr.read_text()


async def test_serve_refuses_a_public_host_for_an_app_without_a_token(tmp_path: Path) -> None:
    """`serve(app, "0.0.0.0")` of an app with no token: ValueError saying why and what to do, nothing listens."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        with pytest.raises(ValueError, match=r"host '0.0.0.0' is not loopback, and the app has no token"):
            await serve(app, "0.0.0.0", 0)


async def _until(
    client: httpx2.AsyncClient, method: str, url: str, count: int, got: list[Message], **kw: object
) -> None:
    async with client.stream(method, url, headers={"accept": "text/event-stream"}, **kw) as response:  # type: ignore[arg-type]
        async with aclosing(messages(response)) as stream:
            async for message in stream:
                got.append(message)
                if len(got) == count:
                    got.append(Message(None, "mark", None))  # this stream is open and under way


async def test_sigterm_ends_every_open_stream_with_end(tmp_path: Path) -> None:
    """Three streams open on two runs (a POST stream and two GETs): after SIGTERM each one's last message
    is `end: interrupted`, its positions gapless; the process exits 0."""
    async with helikon_serve(tmp_path / "runs.db", tmp_path / "serve.log") as server:
        async with httpx2.AsyncClient(base_url=server.url, timeout=10) as client:
            await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": "a"})
            streams: dict[str, list[Message]] = {"post": [], "get-a": [], "get-b": []}
            async with trio.open_nursery() as nursery:
                body = {"agent": "slow", "input": "go", "run_id": "b"}
                nursery.start_soon(lambda: _until(client, "POST", "/runs", 3, streams["post"], json=body))
                await trio.sleep(0.2)
                nursery.start_soon(_until, client, "GET", "/runs/a/events", 3, streams["get-a"])
                nursery.start_soon(_until, client, "GET", "/runs/b/events", 3, streams["get-b"])
                with trio.fail_after(10):
                    while not all(any(m.event == "mark" for m in got) for got in streams.values()):
                        await trio.sleep(0.02)
                server.process.send_signal(signal.SIGTERM)
        with trio.fail_after(15):
            assert await server.process.wait() == 0, server.stderr.read_text()
    for name, got in streams.items():
        assert got[-1] == Message(None, "end", {"status": "interrupted"}), name
        ids = [m.id for m in got if m.id is not None]
        assert ids == list(range(1, len(ids) + 1)), name


async def test_sigterm_ends_an_ag_ui_stream_with_the_cancelled_outcome(tmp_path: Path) -> None:
    """An AG-UI run is its request's own: on SIGTERM it is cancelled at once and its stream still ends
    properly (RUN_FINISHED, outcome cancelled) instead of running on through the grace period."""
    body = RunAgentInput(
        thread_id="thread", run_id="ag1", messages=[AgUiUserMessage(id="u1", content="go")]
    ).model_dump(by_alias=True, mode="json")
    events: list[BaseEvent] = []
    async with helikon_serve(tmp_path / "runs.db", tmp_path / "serve.log") as server:
        async with httpx2.AsyncClient(base_url=server.url, timeout=10) as client:
            async with client.stream("POST", "/ag-ui/slow", json=body) as response:
                async for line in response.aiter_lines():
                    if line.startswith("data: "):
                        events.append(EVENT.validate_json(line.removeprefix("data: ")))
                        if isinstance(events[-1], TextMessageContentEvent) and events[-1].delta == "w1 ":
                            server.process.send_signal(signal.SIGTERM)  # once: a second one stops it at once
        with trio.fail_after(15):
            assert await server.process.wait() == 0, server.stderr.read_text()
    assert stream_problems(events) == []
    assert len([e for e in events if isinstance(e, TextMessageContentEvent)]) < served_agents.SLOW_WORDS
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent) and isinstance(finished.outcome, RunFinishedCancelledOutcome)
