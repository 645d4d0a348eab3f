"""The AG-UI endpoint over real HTTP: mounted in a plain Starlette app served by hypercorn's trio worker on a
loopback port, spoken to by an httpx2 client whose SSE stream is parsed back into the protocol package's models."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import httpx2
import hypercorn.trio
import trio
from ag_ui.core import (
    AssistantMessage as AgUiAssistantMessage,
    BaseEvent,
    EventType,
    FunctionCall,
    Message,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCall as AgUiToolCall,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage as AgUiUserMessage,
)
from hypercorn.config import Config
from starlette.applications import Starlette
from starlette.routing import Route
from tests.serve.test_ag_ui_support import EVENT, final_state, stream_problems

from helikon_fc import (
    AssistantMessage,
    LlmAgent,
    ModelRequest,
    Permissions,
    RunContext,
    Runner,
    ToolCall,
    ToolContext,
    ToolResult,
    UserMessage,
    function_tool,
)
from helikon_fc.serve.ag_ui import AgUiEndpoint, ag_ui_endpoint
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply

DEADLINE = 20.0
"""Seconds of real time any one test may take (the server is real; nothing here should come near it)."""


@function_tool
async def add(ctx: ToolContext[None], a: int, b: int) -> int:
    """Add two numbers, and remember the last sum in the run's shared state.

    Args:
        a: the first.
        b: the second.
    """
    await trio.lowlevel.checkpoint()
    ctx.run.state.set("last_sum", a + b)
    return a + b


def adder(request: ModelRequest) -> ScriptedTurn:
    """Asks for ``add`` on a user's first message; answers with the sum once it has it; then counts the user's words."""
    users = [item.text for item in request.items if isinstance(item, UserMessage)]
    results = [item.output for item in request.items if isinstance(item, ToolResult)]
    if len(users) > 1:
        return reply(f"You said {len(users)} things.")
    if results:
        return reply(f"The sum is {results[-1]}.")
    return call_tools(call("add", a=2, b=3).with_id("sum-1"))


def calculator() -> LlmAgent[None]:
    return LlmAgent(name="calc", model=FunctionModel(adder), tools=[add])


@asynccontextmanager
async def serving(endpoint: AgUiEndpoint) -> AsyncIterator[str]:
    """`endpoint` at ``POST /ag-ui`` of a Starlette app served by hypercorn on 127.0.0.1; yields the base URL."""
    app = Starlette(routes=[Route("/ag-ui", endpoint, methods=["POST"]), Route("/ag-ui/{agent}", endpoint)])
    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.errorlog = None
    async with trio.open_nursery() as nursery:
        binds: list[str] = await nursery.start(partial(hypercorn.trio.serve, app, config))  # type: ignore[arg-type]
        yield binds[0]
        nursery.cancel_scope.cancel()


async def post_run(client: httpx2.AsyncClient, url: str, run_input: RunAgentInput) -> list[BaseEvent]:
    """POST `run_input` and read the whole SSE stream back, each ``data:`` line parsed as an AG-UI event."""
    payload = run_input.model_dump(by_alias=True, mode="json")
    events: list[BaseEvent] = []
    async with client.stream("POST", url, json=payload, headers={"accept": "text/event-stream"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                events.append(EVENT.validate_json(line.removeprefix("data: ")))
            else:
                assert line == "", f"an SSE line that is not data: {line!r}"
    return events


def messages_from(events: list[BaseEvent]) -> list[Message]:
    """The messages an AG-UI client builds from a run's events: assistant messages with their calls, tool messages."""
    assistants: dict[str, AgUiAssistantMessage] = {}
    out: list[Message] = []

    def assistant(message_id: str) -> AgUiAssistantMessage:
        if message_id not in assistants:
            assistants[message_id] = AgUiAssistantMessage(id=message_id)
            out.append(assistants[message_id])
        return assistants[message_id]

    calls: dict[str, AgUiToolCall] = {}
    for event in events:
        if isinstance(event, TextMessageStartEvent):
            assistant(event.message_id).content = ""
        elif isinstance(event, TextMessageContentEvent):
            message = assistant(event.message_id)
            message.content = (message.content or "") + event.delta
        elif isinstance(event, ToolCallStartEvent):
            assert event.parent_message_id is not None
            calls[event.tool_call_id] = AgUiToolCall(
                id=event.tool_call_id, function=FunctionCall(name=event.tool_call_name, arguments="")
            )
            message = assistant(event.parent_message_id)
            message.tool_calls = [*(message.tool_calls or []), calls[event.tool_call_id]]
        elif isinstance(event, ToolCallArgsEvent):
            calls[event.tool_call_id].function.arguments += event.delta
        elif isinstance(event, ToolCallResultEvent):
            assert isinstance(event.content, str)
            out.append(ToolMessage(id=event.message_id, content=event.content, tool_call_id=event.tool_call_id))
    return out


async def test_a_conversation_round_trips_through_the_protocols_types() -> None:
    """Two runs on one thread: the first's events, rebuilt into AG-UI messages, are the second's history."""
    agent = calculator()
    with trio.fail_after(DEADLINE):
        async with serving(ag_ui_endpoint(agent)) as base, httpx2.AsyncClient() as client:
            first_input = RunAgentInput(
                thread_id="thread-1",
                run_id="run-1",
                messages=[AgUiUserMessage(id="u1", content="add 2 and 3")],
                state={"unit": "cm"},
            )
            first = await post_run(client, f"{base}/ag-ui", first_input)
            assert stream_problems(first) == []
            finished = first[-1]
            assert isinstance(finished, RunFinishedEvent) and finished.result == "The sum is 5."
            assert (finished.thread_id, finished.run_id) == ("thread-1", "run-1")
            assert final_state(first) == {"unit": "cm", "last_sum": 5}
            kinds = [event.type for event in first]  # the state changed in the tool: its delta follows the result
            assert kinds.count(EventType.STATE_DELTA) == 1
            assert kinds.index(EventType.TOOL_CALL_RESULT) < kinds.index(EventType.STATE_DELTA)

            history = [*first_input.messages, *messages_from(first)]
            second_input = RunAgentInput(
                thread_id="thread-1",
                run_id="run-2",
                messages=[*history, AgUiUserMessage(id="u2", content="thanks")],
            )
            second = await post_run(client, f"{base}/ag-ui", second_input)
    assert stream_problems(second) == []
    assert isinstance(second[-1], RunFinishedEvent) and second[-1].result == "You said 2 things."
    seen = agent.model.requests[-1].items  # type: ignore[attr-defined]
    assert tuple(seen) == (
        UserMessage("add 2 and 3"),
        ToolCall("sum-1", "add", '{"a":2,"b":3}'),
        ToolResult("sum-1", "5"),
        AssistantMessage("The sum is 5."),
        UserMessage("thanks"),
    )


async def post_json(url: str, content: bytes, method: str = "POST") -> tuple[int, dict[str, Any]]:
    async with httpx2.AsyncClient() as client:
        response = await client.request(method, url, content=content, headers={"content-type": "application/json"})
    return response.status_code, response.json()


async def test_bad_requests_get_the_right_status_and_say_what_is_wrong() -> None:
    """Malformed → 400 with the problems; an unknown agent → 404; too big → 413; GET → 405."""
    endpoint = ag_ui_endpoint({"calc": calculator(), "other": calculator()}, max_body_bytes=2_000)
    good = {"threadId": "t", "runId": "r", "messages": [{"id": "1", "role": "user", "content": "hi"}]}
    with trio.fail_after(DEADLINE):
        async with serving(endpoint) as base:
            status, answer = await post_json(f"{base}/ag-ui", b'{"threadId": "t"')
            assert status == 400 and answer["problems"][0].startswith("the body is not JSON")
            status, answer = await post_json(f"{base}/ag-ui", json.dumps({"threadId": "t", "messages": []}).encode())
            assert status == 400 and "runId: Field required" in answer["problems"]
            status, answer = await post_json(f"{base}/ag-ui", json.dumps(good).encode())
            assert status == 400 and answer["problems"] == [
                "forwardedProps.agent: several agents are served; name the one to run"
            ]
            status, answer = await post_json(f"{base}/ag-ui/nobody", json.dumps(good).encode())
            assert (status, answer["error"]) == (404, "no agent named 'nobody' is served")
            assert answer["problems"] == ["served agents: calc, other"]
            too_big = {**good, "forwardedProps": {"agent": "calc", "padding": "x" * 3_000}}
            status, answer = await post_json(f"{base}/ag-ui", json.dumps(too_big).encode())
            assert status == 413 and "over 2000 bytes" in answer["error"]
            async with httpx2.AsyncClient() as client:
                response = await client.get(f"{base}/ag-ui/calc")
            assert response.status_code == 405 and response.headers["allow"] == "POST"


async def test_an_agent_named_in_the_path_or_the_props_is_the_one_run() -> None:
    """With several agents served, ``/ag-ui/{agent}`` and ``forwardedProps.agent`` each pick one."""
    echo = LlmAgent(name="echo", model=FunctionModel(lambda request: reply("echo here")))
    endpoint = ag_ui_endpoint([calculator(), echo])
    run_input = RunAgentInput(thread_id="t", run_id="r", messages=[AgUiUserMessage(id="1", content="hi")])
    with trio.fail_after(DEADLINE):
        async with serving(endpoint) as base, httpx2.AsyncClient() as client:
            by_path = await post_run(client, f"{base}/ag-ui/echo", run_input)
            by_props = await post_run(
                client, f"{base}/ag-ui", run_input.model_copy(update={"forwarded_props": {"agent": "echo"}})
            )
    for events in (by_path, by_props):
        assert stream_problems(events) == []
        assert isinstance(events[-1], RunFinishedEvent) and events[-1].result == "echo here"


async def test_a_failed_run_streams_run_error_in_words() -> None:
    """A model that fails: the stream is still well formed and ends with RUN_ERROR saying why."""

    def broken(request: ModelRequest) -> ScriptedTurn:
        from helikon_fc.testing import fail

        return fail("the provider is down")

    agent = LlmAgent(name="broken", model=FunctionModel(broken))
    run_input = RunAgentInput(thread_id="t", run_id="r", messages=[AgUiUserMessage(id="1", content="hi")])
    with trio.fail_after(DEADLINE):
        async with serving(ag_ui_endpoint(agent)) as base, httpx2.AsyncClient() as client:
            events = await post_run(client, f"{base}/ag-ui", run_input)
    assert stream_problems(events) == []
    error = events[-1]
    assert isinstance(error, RunErrorEvent) and "the provider is down" in error.message


async def test_a_client_that_disconnects_cancels_the_run() -> None:
    """Closing the stream mid-run cancels the run: the tool it was in sees trio's Cancelled."""
    entered, cancelled = trio.Event(), trio.Event()

    @function_tool
    async def wait_forever() -> str:
        """Wait until cancelled."""
        entered.set()
        try:
            await trio.sleep_forever()
        finally:
            cancelled.set()

    agent = LlmAgent(
        name="waiter", model=FunctionModel(lambda request: call_tools(call("wait_forever"))), tools=[wait_forever]
    )
    run_input = RunAgentInput(thread_id="t", run_id="r", messages=[AgUiUserMessage(id="1", content="wait")])
    with trio.fail_after(DEADLINE):
        async with serving(ag_ui_endpoint(agent)) as base, httpx2.AsyncClient() as client:
            payload = run_input.model_dump(by_alias=True, mode="json")
            async with client.stream("POST", f"{base}/ag-ui", json=payload) as response:
                async for line in response.aiter_lines():
                    if "TOOL_CALL_END" in line:
                        break
                await entered.wait()
                assert not cancelled.is_set()
            await cancelled.wait()  # the response is closed: the server sees the disconnect


@function_tool(name="Bash")
async def bash(command: str) -> str:
    """Run a command.

    Args:
        command: the command line.
    """
    await trio.lowlevel.checkpoint()
    return f"ran {command}"


def operator(request: ModelRequest) -> ScriptedTurn:
    """Asks to wipe the disk; reports whatever came of it."""
    results = [item.output for item in request.items if isinstance(item, ToolResult)]
    if results:
        return reply(f"Result: {results[-1]}")
    return call_tools(call("Bash", command="rm -rf /").with_id("wipe"))


def guarded(run_input: RunAgentInput) -> RunContext[None]:
    return RunContext.ephemeral(None).with_permissions(Permissions())


async def test_a_paused_run_interrupts_and_a_resume_entry_continues_it() -> None:
    """A call needing approval ends the run with an interrupt; a request answering it (parentRunId) continues it."""
    agent = LlmAgent(name="ops", model=FunctionModel(operator), tools=[bash])
    start = RunAgentInput(thread_id="t", run_id="run-1", messages=[AgUiUserMessage(id="1", content="clean up")])
    ls_instead = {"approved": True, "arguments": {"command": "ls"}}
    with trio.fail_after(DEADLINE):
        async with MemoryStore() as store:
            endpoint = ag_ui_endpoint(agent, runner=Runner(store=store), context=guarded)
            async with serving(endpoint) as base, httpx2.AsyncClient() as client:
                paused = await post_run(client, f"{base}/ag-ui", start)
                edited = start.model_copy(
                    update={
                        "run_id": "run-2",
                        "parent_run_id": "run-1",
                        "resume": [ResumeEntry(interrupt_id="wipe", status="resolved", payload=ls_instead)],
                    }
                )
                resumed = await post_run(client, f"{base}/ag-ui", edited)
                unknown = edited.model_copy(update={"parent_run_id": "nothing"})
                status, answer = await post_json(f"{base}/ag-ui", unknown.model_dump_json(by_alias=True).encode())
            assert (await store.run_summary("run-1")).status == "completed"
    assert stream_problems(paused) == []
    assert stream_problems(resumed, earlier_calls=["wipe"]) == []
    assert stream_problems(resumed) == [
        "event 4: TOOL_CALL_RESULT before its call's TOOL_CALL_END (or for no known call)"
    ]
    finished = paused[-1]
    assert isinstance(finished, RunFinishedEvent) and isinstance(finished.outcome, RunFinishedInterruptOutcome)
    (interrupt,) = finished.outcome.interrupts
    assert (interrupt.id, interrupt.metadata) == (
        "wipe",
        {"tool": "Bash", "args": '{"command":"rm -rf /"}', "run_id": "run-1"},
    )
    done = resumed[-1]
    assert isinstance(done, RunFinishedEvent) and done.outcome is None and done.result == "Result: ran ls"
    assert (done.run_id, status) == ("run-2", 404)
    assert "nothing" in answer["error"]


async def test_a_resume_without_a_store_or_a_parent_run_is_refused() -> None:
    """Resume entries need the runner's store and the paused run's id: without them, 400 saying which is missing."""
    run_input = RunAgentInput(
        thread_id="t", run_id="r", messages=[], resume=[ResumeEntry(interrupt_id="c", status="resolved", payload=True)]
    )
    with trio.fail_after(DEADLINE):
        async with serving(ag_ui_endpoint(calculator())) as base:
            status, answer = await post_json(f"{base}/ag-ui", run_input.model_dump_json(by_alias=True).encode())
    assert status == 400
    assert [problem.split(":")[0] for problem in answer["problems"]] == ["resume", "parentRunId"]


async def test_with_sessions_the_threads_history_comes_from_its_session() -> None:
    """``sessions=store.session``: the history is the session's; of the request's messages only the new turn counts."""
    agent = calculator()
    with trio.fail_after(DEADLINE):
        async with MemoryStore() as store:
            endpoint = ag_ui_endpoint(agent, sessions=store.session)
            async with serving(endpoint) as base, httpx2.AsyncClient() as client:
                first_input = RunAgentInput(
                    thread_id="thread-7", run_id="run-1", messages=[AgUiUserMessage(id="u1", content="add 2 and 3")]
                )
                first = await post_run(client, f"{base}/ag-ui", first_input)
                # the client sends the whole conversation, as AG-UI clients do; a stale copy of the history
                # here would be doubled if it were taken as input
                stale = AgUiAssistantMessage(id="x", content="(the client's copy of the answer)")
                second_input = RunAgentInput(
                    thread_id="thread-7",
                    run_id="run-2",
                    messages=[*first_input.messages, stale, AgUiUserMessage(id="u2", content="thanks")],
                )
                second = await post_run(client, f"{base}/ag-ui", second_input)
            stored = await store.session("thread-7").items()
    assert stream_problems(first) == [] and stream_problems(second) == []
    seen = tuple(agent.model.requests[-1].items)  # type: ignore[attr-defined]
    assert seen == (
        UserMessage("add 2 and 3"),
        ToolCall("sum-1", "add", '{"a":2,"b":3}'),
        ToolResult("sum-1", "5"),
        AssistantMessage("The sum is 5.", agent="calc"),
        UserMessage("thanks"),
    )
    assert stored[-2:] == (UserMessage("thanks"), AssistantMessage("You said 2 things.", agent="calc"))


async def test_a_run_cancelled_through_its_context_ends_its_stream_with_the_cancelled_outcome() -> None:
    """An app that keeps each run's context (here: the one ``context`` made) and cancels it, as a server shutting
    down does, gets a stream that still ends properly: RUN_FINISHED with the ``cancelled`` outcome and the reason."""
    contexts: list[RunContext[None]] = []
    entered = trio.Event()

    @function_tool
    async def slow() -> str:
        """Take a long time."""
        entered.set()
        await trio.sleep_forever()
        return "never"

    def keep(run_input: RunAgentInput) -> RunContext[None]:
        contexts.append(RunContext.ephemeral(None))
        return contexts[-1]

    agent = LlmAgent(name="slowpoke", model=FunctionModel(lambda request: call_tools(call("slow"))), tools=[slow])
    run_input = RunAgentInput(thread_id="t", run_id="r", messages=[AgUiUserMessage(id="1", content="go")])
    with trio.fail_after(DEADLINE):
        async with serving(ag_ui_endpoint(agent, context=keep)) as base, httpx2.AsyncClient() as client:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_cancel_when, entered, contexts)
                events = await post_run(client, f"{base}/ag-ui", run_input)
    assert stream_problems(events) == []
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent) and isinstance(finished.outcome, RunFinishedCancelledOutcome)
    assert finished.metadata == {"reason": "server shutting down"}


async def _cancel_when(entered: trio.Event, contexts: list[RunContext[None]]) -> None:
    await entered.wait()
    (ctx,) = contexts
    ctx.cancel("server shutting down")
