"""Issue 26 §1 read sentence by sentence as a new user would probe it: the edges of bodies, streams,
decisions, cancels and resumes that the other serve tests do not reach."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path

import httpx2
import trio
from tests.serve import served_agents
from tests.serve.live_server import Message, collect, messages, served

from helikon_fc import Guardrail, Pass, RunContext, Tripwire
from helikon_fc.permissions import Reject
from helikon_fc.serve import create_app
from helikon_fc.serve.event_log import RunLine
from helikon_fc.serve.streams import follow
from helikon_fc.stores import SQLiteStore


async def _answer(client: httpx2.AsyncClient, method: str, url: str, **kwargs: object) -> tuple[int, dict[str, object]]:
    response = await client.request(method, url, **kwargs)  # type: ignore[arg-type]
    return response.status_code, response.json()


async def test_wrong_shapes_of_valid_json_are_400_naming_the_problem(tmp_path: Path) -> None:
    """JSON that is not an object, or an object without `input`, or with `input` of another type: 400."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        shapes = {
            "a list": [{"agent": "echo", "input": "x"}],
            "a string": "hello",
            "null": None,
            "a number": 3,
            "no input": {"agent": "echo"},
            "input a list": {"agent": "echo", "input": ["x"]},
            "input null": {"agent": "echo", "input": None},
            "agent a number": {"agent": 1, "input": "x"},
        }
        answers = {name: await _answer(client, "POST", "/runs", json=body) for name, body in shapes.items()}
        listed = (await client.get("/runs")).json()["runs"]
    assert {name: status for name, (status, _) in answers.items()} == dict.fromkeys(shapes, 400)
    assert answers["a list"][1]["problems"] == ["$: expected an object, got a list"]
    assert answers["no input"][1]["problems"] == ["$.input: required (the user's message, a string)"]
    assert answers["input a list"][1]["problems"] == ["$.input: expected a string, got a list"]
    assert answers["input null"][1]["problems"] == ["$.input: required (the user's message, a string)"]
    assert answers["agent a number"][1]["problems"] == ["$.agent: expected a string, got a number"]
    assert listed == []  # nothing was started


async def test_the_content_type_is_not_needed_but_the_body_is(tmp_path: Path) -> None:
    """curl's `-d` sends form content type with a JSON body (as docs/serve.md does): it is read as JSON;
    an empty body is 400, not a server error."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        form = await client.post(
            "/runs",
            content=b'{"agent": "echo", "input": "x", "run_id": "f1"}',
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        empty = await client.post("/runs", content=b"")
        not_utf8 = await client.post("/runs", content=b'{"input": "\xff"}')
    assert (form.status_code, form.json()) == (202, {"run_id": "f1"})
    assert empty.status_code == 400 and empty.json()["error"] == "the body is not JSON"
    assert not_utf8.status_code == 400 and not_utf8.json()["problems"]


async def _chunks(size: int) -> AsyncIterator[bytes]:
    yield b'{"agent": "echo", "input": "'
    for _ in range(size // 10_000):
        yield b"x" * 10_000
    yield b'"}'


async def test_a_huge_chunked_body_without_content_length_is_413(tmp_path: Path) -> None:
    """A body streamed without Content-Length is cut at max_body_bytes: 413, and no run starts."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        async with served(create_app(served_agents.agents, store, max_body_bytes=1000)) as client:
            request = client.build_request("POST", "/runs", content=_chunks(200_000))
            assert "content-length" not in request.headers
            response = await client.send(request)
            small = client.build_request("POST", "/runs", content=_chunks(0))
            fits = await client.send(small)
            approvals = await client.post("/runs/r/approvals", content=_chunks(50_000))
    assert response.status_code == 413 and "1000" in response.json()["error"]
    assert fits.status_code == 202
    assert approvals.status_code == 413


async def test_last_event_id_beyond_the_end_negative_and_not_a_number(tmp_path: Path) -> None:
    """Beyond the end: only `end`; negative, non-numeric or a digit that is not ASCII: 400 naming it."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        await collect(client, "POST", "/runs", json={"agent": "echo", "input": "a", "run_id": "r"})
        beyond = await collect(client, "GET", "/runs/r/events", headers={"last-event-id": "9999"})
        by_query = await collect(client, "GET", "/runs/r/events?last_event_id=9999")
        bad = {
            text: await _answer(client, "GET", "/runs/r/events", headers={"last-event-id": text})
            for text in (
                b"-1",
                b"abc",
                b"1.5",
                "\u00b2".encode("latin-1"),
                b"9" * 30,
                b"9" * 5000,
            )  # (not: ², past SQLite's ints)
        }
        bad_query = await _answer(client, "GET", "/runs/r/events?last_event_id=-3")
    assert [(m.event, m.data) for m in beyond] == [("end", {"status": "completed"})]
    assert [(m.event, m.data) for m in by_query] == [("end", {"status": "completed"})]
    assert {text: status for text, (status, _) in bad.items()} == dict.fromkeys(bad, 400)
    assert all("Last-Event-ID" in str(body["problems"]) for _, body in bad.values())
    assert bad_query[0] == 400


async def test_a_finished_runs_stream_replays_it_and_equals_its_records(tmp_path: Path) -> None:
    """Reconnecting to a finished run gives the whole run again, then `end`; GET /runs/{id}'s events are the
    stream's envelopes, in order, and a second replay is identical."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        live = await collect(client, "POST", "/runs", json={"agent": "delegator", "input": "a", "run_id": "d"})
        again = await collect(client, "GET", "/runs/d/events")
        third = await collect(client, "GET", "/runs/d/events")
        records = (await client.get("/runs/d")).json()
    assert live == again == third
    assert [m.data for m in again[:-1]] == records["events"]
    assert [m.id for m in again[:-1]] == [e["position"] for e in records["events"]]
    assert [m.event for m in again[:-1]] == [e["event"]["type"] for e in records["events"]]
    assert again[-1] == Message(None, "end", {"status": "completed"})


async def test_two_clients_on_one_live_run_get_the_same_events(tmp_path: Path) -> None:
    """Two streams of one run, one from the start and one joining mid-way: the same events, once each."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": "two"})
        got: dict[str, list[Message]] = {}

        async def read(name: str, delay: float) -> None:
            await trio.sleep(delay)
            got[name] = await collect(client, "GET", "/runs/two/events")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read, "early", 0)
            nursery.start_soon(read, "late", 0.3)
    assert got["early"] == got["late"]
    assert [m.id for m in got["early"][:-1]] == list(range(1, len(got["early"])))
    assert got["early"][-1].data == {"status": "completed"}


async def test_a_sub_run_is_read_inside_its_caller_not_by_its_own_id(tmp_path: Path) -> None:
    """The agent-as-tool sub-run is in its caller's records; its own id is no run of the API: 404 in the
    error shape (also URL-encoded), and GET /runs does not list it."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        await collect(client, "POST", "/runs", json={"agent": "delegator", "input": "a", "run_id": "d"})
        caller = (await client.get("/runs/d")).json()
        encoded = await _answer(client, "GET", "/runs/d%2Ftool%3Aask-1")
        plain = await client.get("/runs/d/tool:ask-1")
        listed = [run["run_id"] for run in (await client.get("/runs")).json()["runs"]]
    assert any(e["path"] == ["delegator", "helper"] for e in caller["events"])
    assert encoded[0] == 404 and encoded[1]["error"]
    assert plain.status_code == 404 and plain.json()["error"]
    assert listed == ["d"]


async def test_an_unknown_path_or_method_answers_in_the_error_shape(tmp_path: Path) -> None:
    """Every refusal has `{"error", "problems"}`, the router's own 404 and 405 included."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        missing = await client.get("/nowhere")
        wrong_method = await client.delete("/runs")
    assert missing.status_code == 404 and set(missing.json()) == {"error", "problems"}
    assert wrong_method.status_code == 405 and set(wrong_method.json()) == {"error", "problems"}


async def _paused(client: httpx2.AsyncClient, run_id: str) -> None:
    got = await collect(client, "POST", "/runs", json={"agent": "cleaner", "input": "tidy", "run_id": run_id})
    assert got[-1].data == {"status": "paused"}


async def test_cancel_and_resume_answer_by_the_runs_state(tmp_path: Path) -> None:
    """Cancel: 202 for a running or paused run, 409 for one that completed or failed. Resume: 409 for a run
    running, paused, completed or cancelled. Approvals after a cancel: 409."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            await collect(client, "POST", "/runs", json={"agent": "echo", "input": "a", "run_id": "done"})
            await collect(client, "POST", "/runs", json={"agent": "broken", "input": "a", "run_id": "bad"})
            await _paused(client, "p")
            await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": "live"})
            codes = {
                "resume running": (await client.post("/runs/live/resume")).status_code,
                "resume paused": (await client.post("/runs/p/resume")).status_code,
                "resume completed": (await client.post("/runs/done/resume")).status_code,
                "cancel completed": (await client.post("/runs/done/cancel")).status_code,
                "cancel failed": (await client.post("/runs/bad/cancel")).status_code,
                "cancel running": (await client.post("/runs/live/cancel")).status_code,
                "cancel paused": (await client.post("/runs/p/cancel")).status_code,
            }
            live_end = await collect(client, "GET", "/runs/live/events")
            codes["cancel cancelled"] = (await client.post("/runs/p/cancel")).status_code
            codes["resume cancelled"] = (await client.post("/runs/p/resume")).status_code
            decided = await client.post(
                "/runs/p/approvals", json={"decisions": [{"call_id": "wipe-1", "decision": "approve"}]}
            )
            paused_after = (await client.get("/runs/p")).json()
            stream_after = await collect(client, "GET", "/runs/p/events")
    assert codes == {
        "resume running": 409,
        "resume paused": 409,
        "resume completed": 409,
        "cancel completed": 409,
        "cancel failed": 409,
        "cancel running": 202,
        "cancel paused": 202,
        "cancel cancelled": 409,
        "resume cancelled": 409,
    }
    assert live_end[-1].data == {"status": "cancelled"}
    assert decided.status_code == 409
    assert paused_after["run"]["status"] == "cancelled" and paused_after["pending"] == []
    assert stream_after[-1].data == {"status": "cancelled"}


async def test_a_decision_that_leaves_a_call_out_pauses_the_run_again(tmp_path: Path) -> None:
    """A decision for an unknown call id is 409 and nothing resumes; the waiting call is listed with its args."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            await _paused(client, "p")
            pending = (await client.get("/runs/p")).json()["pending"]
            unknown = await client.post(
                "/runs/p/approvals", json={"decisions": [{"call_id": "x", "decision": "reject"}]}
            )
            approve = {"call_id": "wipe-1", "decision": "approve", "arguments": {"command": "rm -rf build/"}}
            ok = await client.post("/runs/p/approvals", json={"decisions": [approve]})
            rest = await collect(client, "GET", "/runs/p/events")
            again = await client.post("/runs/p/approvals", json={"decisions": [approve]})
    assert pending == [{"call_id": "wipe-1", "tool": "Bash", "args": {"command": "rm -rf /"}}]
    assert unknown.status_code == 409 and "'x'" in str(unknown.json()["problems"])
    assert ok.status_code == 202
    outputs = [m.data["event"]["item"]["output"] for m in rest if m.event == "tool_output_item"]
    assert outputs == ["ran rm -rf build/"]
    assert rest[-1].data == {"status": "completed"}
    assert again.status_code == 409


async def test_a_run_config_in_the_body_bounds_the_run(tmp_path: Path) -> None:
    """`config` (the issue's "input, optional session id, run id, config"): max_turns reaches the run;
    a bad config is 400 naming the field."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        body = {"agent": "delegator", "input": "a", "run_id": "c", "config": {"max_turns": 1}}
        got = await collect(client, "POST", "/runs", json=body)
        bad = {
            "not an object": await _answer(client, "POST", "/runs", json={"input": "a", "agent": "echo", "config": 3}),
            "unknown": await _answer(client, "POST", "/runs", json={"input": "a", "agent": "echo", "config": {"x": 1}}),
            "negative": await _answer(
                client, "POST", "/runs", json={"input": "a", "agent": "echo", "config": {"max_turns": -1}}
            ),
        }
    assert got[-2].event == "run_failed" and got[-2].data["event"]["error"]["type"] == "max_turns_exceeded"
    assert {name: status for name, (status, _) in bad.items()} == dict.fromkeys(bad, 400)
    assert "$.config.x: unknown field (allowed: ['max_turns'," in str(bad["unknown"][1]["problems"])
    assert "$.config.max_turns: RunConfig: max_turns must be an int >= 0, got -1" in str(bad["negative"][1]["problems"])


async def test_a_stream_started_with_post_can_be_dropped_and_the_run_goes_on(tmp_path: Path) -> None:
    """A client that drops its `POST /runs` stream does not cancel the run (unlike AG-UI): it completes."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        headers = {"accept": "text/event-stream"}
        body = {"agent": "slow", "input": "go", "run_id": "drop"}
        async with client.stream("POST", "/runs", json=body, headers=headers) as response:
            async with aclosing(messages(response)) as stream:
                async for _ in stream:
                    break
        rest = await collect(client, "GET", "/runs/drop/events", headers={"last-event-id": "1"})
    assert rest[0].id == 2 and rest[-1].data == {"status": "completed"}


async def test_the_apps_guardrails_and_hooks_reach_every_served_run(tmp_path: Path) -> None:
    """`create_app(input_guardrails=..., hooks=...)`: a tripped guardrail fails the run in words over HTTP,
    and the hook sees the runs (the resumed stretch of a paused one too)."""
    seen: list[str] = []

    async def no_secrets(ctx: RunContext[None], text: str) -> Pass | Tripwire:
        await trio.lowlevel.checkpoint()
        return Tripwire("secret", {"why": "no secrets"}) if "secret" in text else Pass()

    async def hook(ctx: RunContext[None], point: object) -> None:
        await trio.lowlevel.checkpoint()
        seen.append(type(point).__name__)

    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(
            served_agents.agents,
            store,
            permissions=served_agents.permissions,
            input_guardrails=[Guardrail("no-secrets", no_secrets)],
            hooks=[hook],
        )
        async with served(app) as client:
            tripped = await collect(client, "POST", "/runs", json={"agent": "echo", "input": "a secret", "run_id": "g"})
            summary = (await client.get("/runs/g")).json()["run"]
            seen.clear()
            await _paused(client, "p")
            before = len(seen)
            decision = {"decisions": [{"call_id": "wipe-1", "decision": "reject"}]}
            assert (await client.post("/runs/p/approvals", json=decision)).status_code == 202
            rest = await collect(client, "GET", "/runs/p/events")
    assert tripped[-2].event == "run_failed" and tripped[-2].data["event"]["error"]["type"] == "guardrail_tripped"
    assert summary["status"] == "failed" and "secret" in summary["error"]
    assert before > 0 and len(seen) > before  # the hook fired in both stretches
    assert rest[-1].data == {"status": "completed"}


async def test_a_session_keeps_a_run_that_paused_and_was_resumed(tmp_path: Path) -> None:
    """A run in a session pauses and is decided over HTTP: the session's next run has its history."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            body = {"agent": "cleaner", "input": "tidy", "run_id": "p", "session_id": "s"}
            assert (await collect(client, "POST", "/runs", json=body))[-1].data == {"status": "paused"}
            decision = {"decisions": [{"call_id": "wipe-1", "decision": "reject"}]}
            assert (await client.post("/runs/p/approvals", json=decision)).status_code == 202
            assert (await collect(client, "GET", "/runs/p/events"))[-1].data == {"status": "completed"}
            body = {"agent": "recall", "input": "how many?", "run_id": "n", "session_id": "s"}
            answer = await collect(client, "POST", "/runs", json=body)
    texts = [m.data["event"]["item"]["text"] for m in answer if m.event == "message_output"]
    assert texts == ["2 user messages"]


async def test_an_interrupted_run_is_resumed_once_or_cancelled(tmp_path: Path) -> None:
    """After a stop mid-run the runs are `interrupted`: a decision for one is 409; two resumes at once are
    one 202 and one 409; a cancelled interrupted run is `cancelled`, its stream ends so, and it resumes no more."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        async with served(create_app(served_agents.agents, store)) as client:
            for run_id in ("i1", "i2"):
                await client.post("/runs", json={"agent": "slow", "input": "go", "run_id": run_id})
            await trio.sleep(0.2)
        async with served(create_app(served_agents.agents, store)) as client:
            listed = {run["run_id"]: run["status"] for run in (await client.get("/runs")).json()["runs"]}
            decision = await client.post(
                "/runs/i1/approvals", json={"decisions": [{"call_id": "c", "decision": "approve"}]}
            )
            statuses: list[int] = []

            async def resume() -> None:
                statuses.append((await client.post("/runs/i1/resume")).status_code)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(resume)
                nursery.start_soon(resume)
            resumed = await collect(client, "GET", "/runs/i1/events")
            cancelled = await client.post("/runs/i2/cancel")
            after_cancel = await client.post("/runs/i2/resume")
            stream = await collect(client, "GET", "/runs/i2/events")
            summary = (await client.get("/runs/i2")).json()["run"]
    assert listed == {"i1": "interrupted", "i2": "interrupted"}
    assert decision.status_code == 409
    assert sorted(statuses) == [202, 409]
    assert resumed[-1].data == {"status": "completed"}
    assert len([m for m in resumed if m.event == "run_completed"]) == 1
    assert [m.id for m in resumed[:-1]] == list(range(1, len(resumed)))
    assert (cancelled.status_code, after_cancel.status_code) == (202, 409)
    assert stream[-1].data == {"status": "cancelled"} and summary["status"] == "cancelled"


async def test_a_listing_filter_by_an_unknown_status_is_400_naming_the_statuses(tmp_path: Path) -> None:
    """`GET /runs?status=done` (no such status) is a mistake to say, not an empty list."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        await collect(client, "POST", "/runs", json={"agent": "echo", "input": "a", "run_id": "r"})
        status, body = await _answer(client, "GET", "/runs?status=done")
        good = (await client.get("/runs?status=completed")).json()["runs"]
        empty = (await client.get("/runs?status=&agent=")).json()["runs"]  # an empty filter is no filter
    assert status == 400
    assert body["problems"] == [
        "status: 'done' is no run status (one of: cancelled, completed, failed, interrupted, paused, running)"
    ]
    assert [run["run_id"] for run in good] == [run["run_id"] for run in empty] == ["r"]


async def test_ag_ui_bodies_too_big_or_not_ag_ui_are_refused_in_the_error_shape(tmp_path: Path) -> None:
    """`POST /ag-ui` of the app: a chunked body over max_body_bytes is 413, a list 400, neither starts a run."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        async with served(create_app(served_agents.agents, store, max_body_bytes=1000)) as client:
            big = await client.send(client.build_request("POST", "/ag-ui/echo", content=_chunks(100_000)))
            wrong = await client.post("/ag-ui/echo", json=[1, 2])
        recorded = await store.runs()
    assert big.status_code == 413 and set(big.json()) == {"error", "problems"}
    assert wrong.status_code == 400 and wrong.json()["problems"]
    assert list(recorded) == []


async def test_every_run_endpoint_answers_404_for_an_unknown_run(tmp_path: Path) -> None:
    """A well-formed request about a run that does not exist is 404 naming it, whatever the endpoint."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        decision = {"decisions": [{"call_id": "c", "decision": "approve"}]}
        answers = [
            await _answer(client, "POST", "/runs/ghost/approvals", json=decision),
            await _answer(client, "POST", "/runs/ghost/cancel"),
            await _answer(client, "POST", "/runs/ghost/resume"),
            await _answer(client, "GET", "/runs/ghost"),
            await _answer(client, "GET", "/runs/ghost/events", headers={"last-event-id": "3"}),
        ]
    assert [status for status, _ in answers] == [404] * 5
    assert all("'ghost'" in str(body["error"]) for _, body in answers)


async def test_two_starts_of_one_run_id_at_once_start_it_once(tmp_path: Path) -> None:
    """Two `POST /runs` with the same `run_id` at the same moment: one 202, one 409; the run has one start."""
    async with SQLiteStore(tmp_path / "runs.db") as store, served(create_app(served_agents.agents, store)) as client:
        statuses: list[int] = []

        async def start() -> None:
            body = {"agent": "slow", "input": "go", "run_id": "once"}
            statuses.append((await client.post("/runs", json=body)).status_code)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(start)
            nursery.start_soon(start)
        events = await collect(client, "GET", "/runs/once/events")
    assert sorted(statuses) == [202, 409]
    assert [m.event for m in events].count("run_started") == 1
    assert events[-1].data == {"status": "completed"}


async def test_a_stream_of_a_paused_run_resumed_while_it_replays_follows_the_resumed_run(tmp_path: Path) -> None:
    """A client reads a paused run's events; the run is decided (and resumed) before its replay is over. The
    stream must not end with `end: running` (or miss the resumed stretch): it follows the run to its end."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            await _paused(client, "p")
            hub = app.state.hub
            async with aclosing(follow(hub, "p", 0)) as chunks:
                first = await anext(chunks)  # the replay under way, the run paused
                await hub.decide("p", {"wipe-1": Reject("no")})
                rest = [chunk async for chunk in chunks]
    positions = [e.position for chunk in [first, *rest] for e in chunk.envelopes]
    assert positions == list(range(1, len(positions) + 1))
    assert rest[-1].end == "completed"
    assert any(e.tag == "run_completed" for chunk in rest for e in chunk.envelopes)


async def test_edited_arguments_that_the_guards_ask_about_pause_the_run_again(tmp_path: Path) -> None:
    """Approve with arguments a guard asks about: they are decided again, so the run pauses once more and
    lists the call with the new arguments; a later plain approval runs it."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store, permissions=served_agents.permissions)
        async with served(app) as client:
            await _paused(client, "p")
            edited = {"call_id": "wipe-1", "decision": "approve", "arguments": {"command": "rm -rf ~"}}
            assert (await client.post("/runs/p/approvals", json={"decisions": [edited]})).status_code == 202
            again = await collect(client, "GET", "/runs/p/events")
            pending = (await client.get("/runs/p")).json()["pending"]
            plain = {"decisions": [{"call_id": "wipe-1", "decision": "approve"}]}
            assert (await client.post("/runs/p/approvals", json=plain)).status_code == 202
            done = await collect(client, "GET", "/runs/p/events")
    assert again[-1].data == {"status": "paused"}
    assert pending == [{"call_id": "wipe-1", "tool": "Bash", "args": {"command": "rm -rf ~"}}]
    outputs = [m.data["event"]["item"]["output"] for m in done if m.event == "tool_output_item"]
    assert outputs == ["ran rm -rf ~"] and done[-1].data == {"status": "completed"}


async def test_a_start_as_the_server_starts_stopping_is_refused_or_interrupted(tmp_path: Path) -> None:
    """A start that passed the door just before shutdown began is refused (503, nothing recorded) or, when its
    records were being written, interrupted with the others, not left running through the shutdown. A run
    interrupted before it recorded anything cannot be resumed: 409 saying so (it failed with RunNotFound)."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        hub = app.state.hub
        async with served(app) as client:
            started: list[int] = []

            async def start() -> None:
                body = {"agent": "slow", "input": "go", "run_id": "late"}
                started.append((await client.post("/runs", json=body)).status_code)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(start)
                while "late" not in hub._claimed:  # the start is under way: between the door and the launch
                    await trio.sleep(0)
                await hub.shutdown()
            late = await client.get("/runs/late")
            events = await collect(client, "GET", "/runs/late/events") if late.status_code == 200 else []
        async with served(create_app(served_agents.agents, store)) as client:
            resumed = await client.post("/runs/late/resume")
    if started == [503]:
        assert late.status_code == 404 and resumed.status_code == 404
    else:
        assert started == [202]
        assert events[-1].data == {"status": "interrupted"}
        assert len([m for m in events if m.event == "token_delta"]) < served_agents.SLOW_WORDS
        assert resumed.status_code in (202, 409)


async def test_a_run_interrupted_before_it_recorded_anything_is_not_resumed(tmp_path: Path) -> None:
    """The server's line of a run exists but the store has nothing of it (the server died at once): resume is
    409 in words, and the run is still listed as interrupted."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        app = create_app(served_agents.agents, store)
        async with served(app) as client:
            await app.state.hub.log.put_line(RunLine("early", "slow", "running", 1.0))
            status, body = await _answer(client, "POST", "/runs/early/resume")
            listed = (await client.get("/runs/early")).json()["run"]["status"]
    assert status == 409
    assert body["error"] == "run 'early' was interrupted before it recorded anything: nothing to resume; start it again"
    assert listed == "interrupted"
