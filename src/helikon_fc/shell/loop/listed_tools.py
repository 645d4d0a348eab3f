"""Run a loop definition with the tools of its tool sources listed for the run (see `shell.tools.tool_source`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import attrs

from ...core import OtherError, RunFailed, TerminalEvent
from ...core.records import RecordLogError, ToolsOffered
from ..durable.run_log import Durability, read_offered
from ..tools.offered_tools import offered, same_tools
from ..tools.tool import Tool
from ..tools.tool_source import ToolSourceError
from .definition import LoopDefinition

Body = Callable[[LoopDefinition], Awaitable[TerminalEvent]]

Listed = Sequence[tuple[Tool[Any], str]]
"""The tools the sources of a definition listed, each with the name of its source."""


async def with_listed_tools(definition: LoopDefinition, body: Body, durable: Durability | None = None) -> TerminalEvent:
    """Open every tool source of `definition` for one run, then run `body` on the definition with their tools.

    The sources stay open while `body` runs and close (in reverse order, in this task) when it ends,
    however it ends. A source that cannot list its tools, or a tool name claimed twice (by two sources,
    or a source and a tool), ends the run with `RunFailed` before any model call, naming both owners.

    A recorded run (`durable`) records what was listed (`ToolsOffered`, with its first records); when
    it is resumed, it offers the recorded tools again, whatever the sources list now (see
    `shell.tools.offered_tools`: a tool that changed meanwhile fails its calls, saying what changed).
    """
    async with AsyncExitStack() as stack:
        try:
            listed = await stack.enter_async_context(open_sources(definition))
            recorded = await read_offered(durable) if durable is not None else None
        except (ToolSourceError, RecordLogError) as exc:
            return RunFailed(OtherError(str(exc)))
        run = run_definition(definition, listed, recorded)
        if run.collision is not None:
            return RunFailed(run.collision)
        return await body(run)
    raise AssertionError("unreachable")  # pragma: no cover - mypy cannot see that the block always returns


@asynccontextmanager
async def open_sources(definition: LoopDefinition) -> AsyncIterator[Listed]:
    """Open every tool source of `definition` for the block (in this task); yield the tools they list.

    Raises:
        ToolSourceError: a source cannot list its tools, or a tool name is claimed twice (by two
            sources, or a source and one of the definition's tools), naming both owners.
    """
    async with AsyncExitStack() as stack:
        owners = {tool.name: f"tool {tool.name!r}" for tool in definition.tools}
        listed: list[tuple[Tool[Any], str]] = []
        for source in definition.tool_sources:
            for tool in await stack.enter_async_context(source.run_tools()):
                _claim(owners, tool.name, f"tool {tool.name!r} of {source.source_name}")
                listed.append((tool, source.source_name))
        yield listed


def run_definition(definition: LoopDefinition, listed: Listed, recorded: ToolsOffered | None = None) -> LoopDefinition:
    """The run's copy of `definition`: its tools and the `listed` ones (or, resumed, the `recorded` ones)."""
    sources = [source.source_name for source in definition.tool_sources]
    if recorded is None:
        tools, offer = tuple(tool for tool, _ in listed), offered(sources, listed)
    else:  # resumed: the tools offered when it started (its fingerprint checks the sources are the same)
        tools, offer = same_tools(recorded, listed), attrs.evolve(recorded, sources=tuple(sources))
    return attrs.evolve(definition, tools=definition.tools + tools, tool_sources=(), offered_tools=offer)


def _claim(owners: dict[str, str], name: str, owner: str) -> None:
    """Record that `owner` offers the tool `name`; raise `ToolSourceError` when another already does."""
    if name in owners:
        raise ToolSourceError(
            f"tool name {name!r} is offered twice, by {owners[name]} and by {owner};"
            " give one MCP server a prefix= (or rename the tool) so every tool name is unique"
        )
    owners[name] = owner
