"""Every refused request gets its status and a body that says what is wrong; a token guards every endpoint
but /health."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from tests.serve import served_agents
from tests.serve.live_server import collect, served

from helikon_fc.serve import create_app
from helikon_fc.stores import SQLiteStore


async def _answer(client: httpx2.AsyncClient, method: str, url: str, **kwargs: object) -> tuple[int, dict[str, object]]:
    response = await client.request(method, url, **kwargs)  # type: ignore[arg-type]
    return response.status_code, response.json()


async def test_bad_bodies_unknown_names_conflicts_and_big_bodies(tmp_path: Path) -> None:
    """400 with the wire problems, 404, 409 and 413, each with an error in words."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, max_body_bytes=200)
        async with served(app) as client:
            await collect(client, "POST", "/runs", json={"agent": "echo", "input": "x", "run_id": "taken"})
            answers = {
                "not json": await _answer(client, "POST", "/runs", content=b"{not json"),
                "not an object": await _answer(client, "POST", "/runs", json=["echo"]),
                "bad fields": await _answer(
                    client, "POST", "/runs", json={"agent": "echo", "input": 3, "colour": "red"}
                ),
                "no input": await _answer(client, "POST", "/runs", json={"agent": "echo", "run_id": ""}),
                "no agent": await _answer(client, "POST", "/runs", json={"input": "x"}),
                "unknown agent": await _answer(client, "POST", "/runs", json={"agent": "ghost", "input": "x"}),
                "taken id": await _answer(
                    client, "POST", "/runs", json={"agent": "echo", "input": "x", "run_id": "taken"}
                ),
                "too big": await _answer(client, "POST", "/runs", json={"agent": "echo", "input": "x" * 500}),
                "unknown run": await _answer(client, "GET", "/runs/ghost"),
                "unknown run events": await _answer(client, "GET", "/runs/ghost/events"),
                "unknown run cancel": await _answer(client, "POST", "/runs/ghost/cancel"),
                "unknown run resume": await _answer(client, "POST", "/runs/ghost/resume"),
                "bad decisions": await _answer(
                    client, "POST", "/runs/taken/approvals", json={"decisions": [{"call_id": 1, "decision": "maybe"}]}
                ),
                "empty decisions": await _answer(client, "POST", "/runs/taken/approvals", json={"decisions": []}),
                "resume finished": await _answer(client, "POST", "/runs/taken/resume"),
                "bad last id": await _answer(client, "GET", "/runs/taken/events", headers={"last-event-id": "x"}),
            }
    statuses = {name: status for name, (status, _) in answers.items()}
    assert statuses == {
        "not json": 400,
        "not an object": 400,
        "bad fields": 400,
        "no input": 400,
        "no agent": 400,
        "unknown agent": 404,
        "taken id": 409,
        "too big": 413,
        "unknown run": 404,
        "unknown run events": 404,
        "unknown run cancel": 404,
        "unknown run resume": 404,
        "bad decisions": 400,
        "empty decisions": 400,
        "resume finished": 409,
        "bad last id": 400,
    }
    assert all(isinstance(body["error"], str) and body["error"] for _, body in answers.values())
    assert answers["bad fields"][1]["problems"] == [
        "$.colour: unknown field (allowed: ['agent', 'config', 'input', 'run_id', 'session_id'])"
    ]
    assert answers["no input"][1]["problems"] == [
        "$.input: required (the user's message, a string)",
        "$.run_id: must not be empty",
    ]
    assert answers["bad decisions"][1]["problems"] == [
        "$.decisions[0].call_id: required, a non-empty string, got a number",
        "$.decisions[0].decision: must be 'approve' or 'reject', got 'maybe'",
    ]
    assert "ghost" in str(answers["unknown agent"][1]["error"]) and "echo" in str(answers["unknown agent"][1]["error"])


async def test_a_field_of_the_wrong_type_is_named(tmp_path: Path) -> None:
    """Each field that does not decode is one problem, with its path and what it got."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            status, body = await _answer(client, "POST", "/runs", json={"agent": "echo", "input": 3, "session_id": []})
    assert status == 400
    assert body["problems"] == [
        "$.input: expected a string, got a number",
        "$.session_id: expected a string, got a list",
    ]


@pytest.mark.parametrize(
    ("headers", "query", "status"),
    [
        ({}, "", 401),
        ({"authorization": "Bearer wrong"}, "", 401),
        ({"authorization": "Basic s3cret-token"}, "", 401),
        ({"authorization": "Bearer s3cret-token"}, "", 200),
        ({}, "?access_token=s3cret-token", 200),
        ({}, "?access_token=s3cret", 401),
    ],
)
async def test_a_token_guards_every_endpoint_but_health(
    tmp_path: Path, headers: dict[str, str], query: str, status: int
) -> None:
    """Wrong or missing token: 401 (in the error shape); the right one in the header or the query: served."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, token="s3cret-token")
        async with served(app) as client:
            runs = await client.get("/runs" + query, headers=headers)
            agents = await client.get("/agents" + query, headers=headers)
            started = await client.post("/runs" + query, headers=headers, json={"agent": "echo", "input": "x"})
            health = await client.get("/health")
    assert (runs.status_code, agents.status_code) == (status, status)
    assert started.status_code == (202 if status == 200 else 401)
    assert health.status_code == 200
    if status == 401:
        assert runs.json() == {"error": "a valid bearer token is required", "problems": []}
    else:
        assert [a["name"] for a in agents.json()["agents"]] == [
            "echo",
            "slow",
            "cleaner",
            "recall",
            "pipeline",
            "broken",
            "delegator",
        ]


def test_create_app_refuses_bad_arguments() -> None:
    """Bad arguments are named when the app is built, not by the first request."""
    with pytest.raises(ValueError, match="agents is empty"):
        create_app([])
    with pytest.raises(TypeError, match=r"agents\[0\] must be an agent"):
        create_app(["echo"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="two agents are named 'echo'"):
        create_app([served_agents.echo, served_agents.echo])
    with pytest.raises(ValueError, match="max_body_bytes must be a positive int, got 0"):
        create_app(served_agents.agents, max_body_bytes=0)
    with pytest.raises(ValueError, match="token must be a non-empty string"):
        create_app(served_agents.agents, token="")


async def test_a_run_id_with_a_slash_is_refused(tmp_path: Path) -> None:
    """'/' joins a run's id to its sub-runs' segments in the store: a run id may not contain one."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            status, body = await _answer(client, "POST", "/runs", json={"agent": "echo", "input": "x", "run_id": "a/b"})
    assert (status, body["problems"]) == (400, ["$.run_id: must not contain '/', got 'a/b'"])
