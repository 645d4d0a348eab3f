"""`MCPTool`: one tool of an MCP server as an ordinary `Tool` of the run (checked, permitted, hooked by name)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

import attrs
import mcp_types as types

from ..core import JsonObject, ToolEffect
from ..core.compiled_schema import SchemaError, compile_schema
from ..shell.tools.tool import ToolContext, ToolOutput
from ._errors import MCPServerError

Call: TypeAlias = Callable[[str, JsonObject, bool], Awaitable[ToolOutput]]
"""Calls a tool of the server by its name there, saying whether a call may be sent again (`Connection.call`)."""

_ANY_OBJECT: JsonObject = {"type": "object"}


@attrs.frozen
class MCPTool:
    """A tool an MCP server listed, offered to the model under `name` (the server's name, after a prefix).

    Attributes:
        name: the name the model calls (``prefix + remote_name``).
        description: the server's description of the tool.
        parameters: the tool's input schema (``{"type": "object"}`` when listed leniently).
        effect: what a call may change (from the tool's annotations, or the server's ``effects=``).
        remote_name: the tool's name on the server.
        retry_safe: whether a call may be sent again when the session it went out on expired (the
            tool says it changes nothing: ``readOnlyHint`` or ``idempotentHint``, or ``effects=`` says
            read-only).
    """

    name: str
    description: str
    parameters: JsonObject
    effect: ToolEffect
    remote_name: str
    _call: Call = attrs.field(repr=False, eq=False)
    retry_safe: bool = False

    async def invoke(self, ctx: ToolContext[Any], arguments: JsonObject) -> ToolOutput:
        """Call the tool on its server (see `Connection.call`)."""
        return await self._call(self.remote_name, arguments, self.retry_safe)


def listed_tools(
    label: str, call: Call, listed: list[types.Tool], prefix: str, lenient: bool, effects: Mapping[str, ToolEffect]
) -> tuple[MCPTool, ...]:
    """The server's listed tools as `MCPTool`s (each calling `call`); `label` names the server in errors.

    Raises:
        MCPServerError: a tool's input schema is refused by the checker (and `lenient` is off), or
            `effects` names a tool the server did not list.
    """
    unknown = sorted(set(effects) - {tool.name for tool in listed})
    if unknown:
        names = ", ".join(repr(tool.name) for tool in listed)
        raise MCPServerError(
            f"{label}: effects= names {', '.join(map(repr, unknown))}, which it does not offer;"
            f" its tools are {names or 'none'}"
        )
    return tuple(_tool(label, call, tool, prefix, lenient, effects.get(tool.name)) for tool in listed)


def _tool(label: str, call: Call, tool: types.Tool, prefix: str, lenient: bool, effect: ToolEffect | None) -> MCPTool:
    schema: JsonObject = dict(tool.input_schema)
    description = tool.description or ""
    try:
        compile_schema(schema)
    except SchemaError as exc:
        if not lenient:
            raise MCPServerError(
                f"{label}: the input schema of its tool {tool.name!r} is refused ({exc});"
                " pass lenient_schemas=True to offer it with its arguments unchecked"
            ) from None
        description = f"{description}\n\nArguments (JSON Schema, not checked): {json.dumps(schema, sort_keys=True)}"
        schema = _ANY_OBJECT
    return MCPTool(
        prefix + tool.name,
        description,
        schema,
        effect or annotated_effect(tool.annotations),
        tool.name,
        call,
        _retry_safe(tool.annotations) if effect is None else effect is ToolEffect.READ_ONLY,
    )


def _retry_safe(annotations: types.ToolAnnotations | None) -> bool:
    """Whether the annotations say a call changes nothing (read-only, or idempotent)."""
    return annotations is not None and bool(annotations.read_only_hint or annotations.idempotent_hint)


def annotated_effect(annotations: types.ToolAnnotations | None) -> ToolEffect:
    """The effect a tool's annotations declare: ``readOnlyHint`` -> read-only; ``destructiveHint: false``
    (and not read-only) -> write; anything else, including no annotations, -> side effect."""
    if annotations is None:
        return ToolEffect.SIDE_EFFECT
    if annotations.read_only_hint:
        return ToolEffect.READ_ONLY
    if annotations.destructive_hint is False:
        return ToolEffect.WRITE
    return ToolEffect.SIDE_EFFECT
