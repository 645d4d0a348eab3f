"""`serve_mcp`: an agent offered to MCP clients as one tool, over stdio or streamable HTTP.

Each ``tools/call`` is one run of the agent through a `Runner` (with a store, a recorded run), on a
fresh context whose user value is `None`. The run's final answer is the tool's text result; an agent
with an ``output_type`` also answers with ``structuredContent`` (and its tool declares the schema as
``outputSchema``); a run that fails, or pauses for an approval an MCP client cannot give, answers with
``isError: true`` and the reason in words. A client's ``notifications/cancelled`` cancels the run's task.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import partial
from typing import Any, Literal

import attrs
import mcp_types as types
import trio
from mcp.server.lowlevel.server import Server

from ..agents.protocol import Agent
from ..core import AgentEvent, JsonObject, RunFailed, RunPaused
from ..shell._checks import describe, is_agent, message
from ..shell.context.config import RunConfig
from ..shell.context.run_context import RunContext
from ..shell.durable.storage import RunStore, require_run_store
from ..shell.loop.results import final_text
from ..shell.loop.runner import Runner
from ._draining import draining

INPUT_SCHEMA: JsonObject = {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}
"""The agent tool's input: one string, the user's message."""

_OWNER = "serve_mcp"
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@attrs.frozen
class AgentTool:
    """The agent as one MCP tool: its listing and its calls (transport-free, so it is tested in process)."""

    agent: Agent[Any]
    runner: Runner
    name: str
    description: str
    output_schema: JsonObject | None

    def tool(self) -> types.Tool:
        """The tool as ``tools/list`` shows it."""
        return types.Tool(
            name=self.name, description=self.description, input_schema=INPUT_SCHEMA, output_schema=self.output_schema
        )

    async def call(self, params: types.CallToolRequestParams, progress: Progress) -> types.CallToolResult:
        """Run the agent on the call's ``input``; its answer (or why it has none) as the tool's result."""
        await trio.lowlevel.checkpoint()  # a refused call too is a checkpoint of its handler
        if params.name != self.name:
            return _error(f"no tool named {params.name!r}; this server's only tool is {self.name!r}")
        text = (params.arguments or {}).get("input")
        if not isinstance(text, str):
            return _error(f"the argument 'input' must be a string (the message to the agent), got {describe(text)}")
        events: list[AgentEvent] = []
        async with self.runner.run(self.agent, RunContext.ephemeral(None), text) as stream:
            async for event in stream:
                events.append(event)
                await progress(len(events), type(event).__name__)
        return self._result(events)

    def _result(self, events: Sequence[AgentEvent]) -> types.CallToolResult:
        match events[-1] if events else None:
            case RunFailed(error=error):
                return _error(f"the agent {self.agent.name!r} failed: {error}")
            case RunPaused(pending=pending):
                names = ", ".join(request.tool for request in pending)
                return _error(f"the agent {self.agent.name!r} paused for an approval of {names}, which MCP cannot give")
        answer = final_text(events)
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=answer)]
        if self.output_schema is None:
            return types.CallToolResult(content=content)
        return types.CallToolResult(content=content, structured_content=json.loads(answer))


class Progress:
    """Sends each event of a run as a progress notification, when the client asked for them."""

    def __init__(self, session: Any) -> None:
        self._session = session

    async def __call__(self, count: int, what: str) -> None:
        """Report `count` events so far, the last one being `what` (a no-op without a progress token)."""
        await self._session.report_progress(float(count), None, what)


def agent_tool(
    agent: Agent[Any], *, name: str | None, description: str | None, runner: Runner | None, store: RunStore | None
) -> AgentTool:
    """`agent` as an `AgentTool`, the arguments checked (see `serve_mcp`)."""
    if not is_agent(agent):
        raise TypeError(message(_OWNER, "agent", agent, "an agent (an LlmAgent, a workflow, a swarm, a graph)"))
    tool_name = name if name is not None else re.sub(r"[^A-Za-z0-9_.-]+", "_", agent.name)[:128] or "agent"
    if not isinstance(tool_name, str) or not _NAME.match(tool_name):
        raise ValueError(message(_OWNER, "name", name, "1 to 128 letters, digits, '_', '-' or '.'"))
    if description is not None and not isinstance(description, str):
        raise TypeError(message(_OWNER, "description", description, "a string or None"))
    if runner is not None and not isinstance(runner, Runner):
        raise TypeError(message(_OWNER, "runner", runner, "a Runner or None"))
    if runner is None:  # the agent's own config, as a bare run of it would have
        own = getattr(agent, "run_config", None)
        runner = Runner(own) if isinstance(own, RunConfig) else Runner()
    if store is not None:
        require_run_store(_OWNER, "store", store)
        if runner.store is not None:
            raise ValueError(message(_OWNER, "store", store, "None when the runner has a store of its own"))
        runner = attrs.evolve(runner, store=store)
    return AgentTool(agent, runner, tool_name, description or _description(agent), _output_schema(agent))


def _description(agent: Agent[Any]) -> str:
    """The agent's own description, else the first line of its instructions (when they are a string)."""
    if agent.description.strip():
        return agent.description.strip()
    instructions = getattr(agent, "instructions", None)
    if isinstance(instructions, str) and instructions.strip():
        return instructions.strip().splitlines()[0]
    return f"Ask the agent {agent.name!r}: its answer to the input."


def _output_schema(agent: Agent[Any]) -> JsonObject | None:
    output_type = getattr(agent, "output_type", None)
    if output_type is None:
        return None
    from ..shell.tools.type_schema import output_schema_for

    return output_schema_for(output_type).schema


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def mcp_server(tool: AgentTool) -> Server[Any]:
    """The SDK's low-level server offering `tool`."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        await trio.lowlevel.checkpoint()
        return types.ListToolsResult(tools=[tool.tool()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await tool.call(params, Progress(ctx.session))

    return Server(tool.name, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_mcp(
    agent: Agent[Any],
    *,
    name: str | None = None,
    description: str | None = None,
    runner: Runner | None = None,
    store: RunStore | None = None,
    transport: Literal["stdio", "http"] = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    task_status: trio.TaskStatus[str | None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `agent` as an MCP tool until the client goes away (stdio) or the task is cancelled (HTTP).

    ``url = await nursery.start(partial(serve_mcp, agent, transport="http", port=0))`` returns once
    the server listens, with its URL (``http://127.0.0.1:PORT/mcp``; `None` over stdio).

    Args:
        agent: any `Agent`; each call runs it on the call's ``input`` with a context whose user value is `None`.
        name: the tool's name (default: the agent's name, with characters MCP does not allow as ``_``).
        description: the tool's description (default: the agent's description, else the first line
            of its instructions).
        runner: runs each call, its config winning over the agent's own (default: a `Runner` with the
            agent's own ``run_config``).
        store: record each call as a run in this store (``Runner(config, store=store)``).
        transport: ``"stdio"`` (stdin and stdout: the client started this process) or ``"http"``
            (streamable HTTP at ``http://host:port/mcp``).
        host: the address the HTTP server listens on.
        port: its port (0: any free one; the URL `task_status` gets names it).
        task_status: for ``nursery.start``: given the URL once the server listens.

    Raises:
        TypeError, ValueError: an argument is of the wrong kind (the message names it).
    """
    tool = agent_tool(agent, name=name, description=description, runner=runner, store=store)
    if transport not in ("stdio", "http"):
        raise ValueError(message(_OWNER, "transport", transport, "'stdio' or 'http'"))
    if not isinstance(host, str) or not host:
        raise TypeError(message(_OWNER, "host", host, "a non-empty string (an address to listen on)"))
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(message(_OWNER, "port", port, "a port number from 0 to 65535"))
    server = mcp_server(tool)
    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        async with stdio_server() as streams, draining(*streams) as (read, write):
            task_status.started(None)
            await server.run(read, write, server.create_initialization_options())
        return
    await _serve_http(server, host, port, task_status)


async def _serve_http(server: Server[Any], host: str, port: int, task_status: trio.TaskStatus[str | None]) -> None:
    import hypercorn.trio
    from hypercorn.config import Config

    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    app = server.streamable_http_app(host=host)
    async with trio.open_nursery() as nursery:
        (bound,) = await nursery.start(partial(hypercorn.trio.serve, app, config))  # type: ignore[arg-type]
        task_status.started(f"{bound}/mcp")
