"""``POST /ag-ui`` of `create_app`: the served agents speak AG-UI beside ``/runs``, behind the same token."""

from __future__ import annotations

from pathlib import Path

from ag_ui.core import RunAgentInput, RunFinishedEvent, UserMessage as AgUiUserMessage
from tests.serve import served_agents
from tests.serve.live_server import served
from tests.serve.test_ag_ui_support import EVENT, stream_problems

from helikon_fc.serve import create_app
from helikon_fc.stores import SQLiteStore


def run_input(run_id: str, text: str, agent: str) -> dict[str, object]:
    value = RunAgentInput(
        thread_id=f"thread-{run_id}",
        run_id=run_id,
        messages=[AgUiUserMessage(id="u1", content=text)],
        forwarded_props={"agent": agent},
    )
    return value.model_dump(by_alias=True, mode="json")


async def test_the_app_serves_ag_ui_for_the_agent_a_request_names(tmp_path: Path) -> None:
    """The agent named in forwardedProps runs; its AG-UI stream is well formed and ends with its answer."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        async with served(create_app(served_agents.agents, store)) as client:
            async with client.stream(
                "POST", "/ag-ui", json=run_input("a1", "hello", "echo"), headers={"accept": "text/event-stream"}
            ) as response:
                assert response.status_code == 200, await response.aread()
                lines = [line async for line in response.aiter_lines() if line.startswith("data: ")]
            by_path = await client.post("/ag-ui/echo", json=run_input("a2", "again", "echo"))
        recorded = {summary.run_id for summary in await store.runs()}
    assert {"a1", "a2"} <= recorded  # AG-UI runs are recorded under the request's runId
    events = [EVENT.validate_json(line.removeprefix("data: ")) for line in lines]
    assert stream_problems(events) == []
    assert isinstance(events[-1], RunFinishedEvent) and events[-1].result == "echo: hello"
    assert by_path.status_code == 200 and "echo: again" in by_path.text


async def test_ag_ui_needs_the_token_like_every_other_endpoint(tmp_path: Path) -> None:
    async with SQLiteStore(tmp_path / "runs.db") as store:
        async with served(create_app(served_agents.agents, store, token="s3cret")) as client:
            refused = await client.post("/ag-ui", json=run_input("t1", "hi", "echo"))
            allowed = await client.post(
                "/ag-ui", json=run_input("t2", "hi", "echo"), headers={"authorization": "Bearer s3cret"}
            )
    assert refused.status_code == 401
    assert allowed.status_code == 200 and "echo: hi" in allowed.text


async def test_an_unknown_agent_is_404_naming_it(tmp_path: Path) -> None:
    async with SQLiteStore(tmp_path / "runs.db") as store:
        async with served(create_app(served_agents.agents, store)) as client:
            answer = await client.post("/ag-ui", json=run_input("u1", "hi", "nobody"))
    assert answer.status_code == 404 and "nobody" in answer.text
