"""An agent's tool sources (MCP servers) on a worker: kept open for the worker's life, listed and called in activities.

- The worker keeps each source it finds among its agents open (`kept_open`: ``async with server:``
  for the whole trio run of its `TrioPortal`, entered and left by that run's main task), so every
  activity shares one session per server, and a server's process lives as long as the worker.
- Listing is the ``describe`` activity's work: the tools the sources list go into the model loop's
  plan (its transition context), which is the activity's result and so is recorded in the workflow's
  history. A replayed run reads the tools from there, never from the server: what the server lists
  later cannot change a run's past.
- Each tool call is a ``call_tool`` activity, which finds the tool by name among what the sources
  list at that moment (`with_listed`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import TypeVar

from ..shell.loop.definition import LoopDefinition
from ..shell.loop.listed_tools import open_sources, run_definition
from ..shell.tools.tool_source import ToolSource

T = TypeVar("T")


@asynccontextmanager
async def kept_open(sources: Sequence[ToolSource]) -> AsyncIterator[None]:
    """Enter each of `sources` that is an async context manager (an MCP server) for the block, in this task.

    Raises:
        ToolSourceError: a source could not be opened (an `MCPServerError` naming the server).
    """
    async with AsyncExitStack() as stack:
        for source in sources:
            if isinstance(source, AbstractAsyncContextManager):
                await stack.enter_async_context(source)
        yield


async def listed_definition(definition: LoopDefinition) -> LoopDefinition:
    """`definition` with its sources' tools, as a run's plan offers them to the model.

    Raises:
        ToolSourceError: a source cannot list its tools, or a tool name is claimed twice.
    """
    async with open_sources(definition) as listed:
        return run_definition(definition, listed)


async def with_listed(definition: LoopDefinition, act: Callable[[LoopDefinition], Awaitable[T]]) -> T:
    """``await act(...)`` on `definition` with its sources' tools (on `definition` itself when it has none),
    the sources open meanwhile.

    Raises:
        ToolSourceError: a source cannot list its tools, or a tool name is claimed twice.
    """
    if not definition.tool_sources:
        return await act(definition)
    async with open_sources(definition) as listed:
        return await act(run_definition(definition, listed))
