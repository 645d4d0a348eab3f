"""The tools a run's sources listed, as recorded (`ToolsOffered`), and the same tools again on resume.

A recorded run offers the model the tools its sources listed when it started, for its whole length,
resumes included: `same_tools` takes the recorded list and what the sources list now, and gives
the live tool where nothing changed and a `StaleTool` where the tool changed or went away. A stale
tool is offered as it was (the model's view of the run does not change under it), and a call to it
fails with a tool error the model reads, naming the tool and what changed: a changed tool is never
swapped in silently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ...core import JsonObject, ToolEffect
from ...core.records import OfferedTool, ToolsOffered
from .tool import Tool, ToolContext, ToolError, ToolOutput, tool_effect


def offered(sources: Sequence[str], listed: Sequence[tuple[Tool[Any], str]]) -> ToolsOffered:
    """The record of `listed` (each tool with the name of the source that listed it), from `sources`."""
    return ToolsOffered(
        sources=tuple(sources),
        tools=tuple(
            OfferedTool(
                name=tool.name,
                source=source,
                description=tool.description,
                parameters=tool.parameters,
                effect=tool_effect(tool),
            )
            for tool, source in listed
        ),
    )


def same_tools(recorded: ToolsOffered, listed: Sequence[tuple[Tool[Any], str]]) -> tuple[Tool[Any], ...]:
    """The tools `recorded` names, in its order: the listed tool where it is listed unchanged, else a `StaleTool`."""
    live: Mapping[str, tuple[Tool[Any], str]] = {tool.name: (tool, source) for tool, source in listed}
    return tuple(_same(one, live.get(one.name)) for one in recorded.tools)


def _same(recorded: OfferedTool, live: tuple[Tool[Any], str] | None) -> Tool[Any]:
    if live is None:
        return StaleTool(recorded, f"{recorded.source} no longer offers it")
    changed = changes(recorded, offered((), [live]).tools[0])
    if changed:
        return StaleTool(recorded, f"{recorded.source} now offers it with another {' and '.join(changed)}")
    return live[0]


def changes(before: OfferedTool, now: OfferedTool) -> list[str]:
    """What differs between two offers of one tool, in words (``["input schema", "effect (...)"]``)."""
    found: list[str] = []
    if now.source != before.source:
        found.append(f"source ({now.source}, not {before.source})")
    if now.description != before.description:
        found.append("description")
    if now.parameters != before.parameters:
        found.append("input schema")
    if now.effect is not before.effect:
        found.append(f"effect ({now.effect.value}, not {before.effect.value})")
    return found


@attrs.frozen
class StaleTool:
    """A tool a resumed run was offered that its source no longer offers as it was: offered to the model
    as recorded, and every call fails with a tool error saying why (see the module docstring)."""

    recorded: OfferedTool
    why: str
    """What changed (``MCP server '...' no longer offers it``)."""

    @property
    def name(self) -> str:
        return self.recorded.name

    @property
    def description(self) -> str:
        return self.recorded.description

    @property
    def parameters(self) -> JsonObject:
        return self.recorded.parameters

    @property
    def effect(self) -> ToolEffect:
        return self.recorded.effect

    async def invoke(self, ctx: ToolContext[Any], arguments: JsonObject) -> ToolOutput:
        """Fail: the tool is not what the run was offered."""
        raise ToolError(
            f"tool {self.name!r} changed since this run started: {self.why}; it was not called"
            " (the run offers its tools as they were when it started)"
        )
