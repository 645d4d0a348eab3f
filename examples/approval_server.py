"""A served agent whose dangerous calls wait for a human, decided over HTTP.

    python examples/approval_server.py
    helikon serve examples/approval_server.py:agent --permissions examples/approval_server.py:permissions

Run as a script, it serves the agent on a free loopback port (hypercorn's trio worker, a SQLite store in
a temporary folder) and plays the client: it starts a run with ``POST /runs`` and reads its events as
they stream; the run pauses on ``rm -rf /`` and ``rm -rf ~`` (the built-in guards ask about them); it sends
the decisions with ``POST /runs/cleanup/approvals`` — one approved with safer arguments, one rejected —
and follows the rest of the run with ``GET /runs/cleanup/events`` and ``Last-Event-ID``. Served with
``helikon serve``, the same agent waits for decisions from any HTTP client (or the inspector page).
It runs on the scripted simulator: no key, no network beyond loopback.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import trio
from _support import needs, pick_model, run_example

from helikon_fc import LlmAgent, Model, Permissions, RunError, function_tool
from helikon_fc.core import AgentError, ModelRequest, ToolResult, from_json
from helikon_fc.stores import SQLiteStore
from helikon_fc.testing import FunctionModel, call, call_tools, reply
from helikon_fc.testing.script import ScriptedTurn

with needs("pip install 'helikon_fc[serve]'"):
    import httpx2

    from helikon_fc.serve import create_app, serve

COMMANDS = {"list": "ls build/", "wipe": "rm -rf /", "home": "rm -rf ~"}


@function_tool(name="Bash")
async def bash(command: str) -> str:
    """Run a shell command (here: pretend to).

    Args:
        command: the command line.
    """
    return f"$ {command}\nok"


def _turn(request: ModelRequest) -> ScriptedTurn:
    results = [item for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(*(call("Bash", command=line).with_id(key) for key, line in COMMANDS.items()))
    return reply("; ".join(f"{result.call_id}: {result.output.splitlines()[-1]}" for result in results))


model: Model = pick_model(FunctionModel(_turn))
agent = LlmAgent(name="housekeeping", model=model, tools=[bash], instructions="Clean up the build folder.")
"""The served agent: three shell commands in one turn, then a summary of what came back."""

permissions = Permissions()
"""The built-in guards: a human decides destructive commands (``rm -rf /``, ``rm -rf ~``)."""


async def follow(client: httpx2.AsyncClient, method: str, url: str, **kwargs: Any) -> list[dict[str, Any]]:
    """The messages of an event stream up to its `end`: ``{"id", "event", "data"}`` each."""
    got: list[dict[str, Any]] = []
    message: dict[str, Any] = {}
    headers = {"accept": "text/event-stream", **kwargs.pop("headers", {})}
    async with client.stream(method, url, headers=headers, **kwargs) as response:
        async for line in response.aiter_lines():
            if line.startswith(("id:", "event:", "data:")):
                name, _, value = line.partition(": ")
                message[name.rstrip(":")] = json.loads(value) if name == "data" else value
            elif not line and "data" in message:
                got.append(message)
                message = {}
    return got


def show(messages: list[dict[str, Any]]) -> None:
    """Print the tool calls and results, the answer and the pause of a stretch of the run."""
    for message in messages:
        event = message["data"].get("event", {})
        match message["event"]:
            case "tool_output_item":
                print(f"  {event['item']['call_id']} -> {event['item']['output'].splitlines()[-1]}")
            case "message_output":
                print(f"answer: {event['item']['text']}")
            case "run_paused":
                print(f"paused at position {message['id']}; waiting:")
                for request in event["pending"]:
                    print(f"  {request['call_id']}: {request['args']}")
            case "run_failed":
                raise RunError(from_json(AgentError, json.dumps(event["error"])))
            case _:
                pass


async def play(url: str) -> None:
    """The client's side: start the run, approve and reject, follow it to its end."""
    async with httpx2.AsyncClient(base_url=url, timeout=30) as client:
        first = await follow(client, "POST", "/runs", json={"input": "Tidy up.", "run_id": "cleanup"})
        show(first)
        decisions = [
            {"call_id": "wipe", "decision": "approve", "arguments": {"command": "rm -rf build/"}},
            {"call_id": "home", "decision": "reject", "reason": "never the home directory"},
        ]
        answered = await client.post("/runs/cleanup/approvals", json={"decisions": decisions})
        print(f"POST /runs/cleanup/approvals -> {answered.status_code}: wipe as `rm -rf build/`, home rejected")
        last = first[-2]["id"]  # the last event before `end`
        rest = await follow(client, "GET", "/runs/cleanup/events", headers={"last-event-id": last})
        show(rest)
        summary = (await client.get("/runs/cleanup")).json()
        positions = [event["position"] for event in summary["events"]]
        print(f"status: {summary['run']['status']}, {len(positions)} events, positions 1..{positions[-1]}")


async def main() -> None:
    failure: RunError | None = None
    with tempfile.TemporaryDirectory() as folder:
        async with SQLiteStore(Path(folder) / "runs.db") as store:
            app = create_app([agent], store, permissions=permissions)
            async with trio.open_nursery() as nursery:
                urls = await nursery.start(serve, app, "127.0.0.1", 0)
                try:
                    await play(urls[0])
                except RunError as exc:  # raised outside the nursery, so it is one line, not a group
                    failure = exc
                nursery.cancel_scope.cancel()
    if failure is not None:
        raise failure


if __name__ == "__main__":
    run_example(main)
