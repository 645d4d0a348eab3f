"""What the model reads of an MCP tool result: text as is, structured content as JSON, everything else
as a one-line textual reference (never dropped without a trace)."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from ..core import JsonValue
from ..shell.tools.tool import ToolError, ToolOutput


def tool_output(result: types.CallToolResult) -> ToolOutput:
    """The `ToolOutput` of a successful call; raise `ToolError` (which the model reads) for ``isError: true``.

    With ``structuredContent`` and only text blocks (which the spec makes its serialized copy), the
    output is the structured value itself; otherwise every block is rendered, one per line, and the
    structured value, when present, follows as JSON.
    """
    structured: Any = result.structured_content
    if result.is_error:  # the blocks, else the structured value: a server may tell its error in either
        told = render_blocks(result.content) or (_json(structured) if structured is not None else "")
        raise ToolError(told or "the MCP tool reported an error without a message")
    if structured is not None and all(isinstance(block, types.TextContent) for block in result.content):
        value: JsonValue = structured
        return ToolOutput(value)
    parts = [render_block(block) for block in result.content]
    if structured is not None:
        parts.append(_json(structured))
    return ToolOutput("\n".join(parts))


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def render_blocks(blocks: list[types.ContentBlock]) -> str:
    """Every block rendered (`render_block`), one per line."""
    return "\n".join(render_block(block) for block in blocks)


def render_block(block: types.ContentBlock) -> str:
    """One content block as text: text as is; images, audio, resources and links as ``[...]`` references."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return f"[image {block.mime_type}, {_size(block.data)} not shown]"
    if isinstance(block, types.AudioContent):
        return f"[audio {block.mime_type}, {_size(block.data)} not shown]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link {block.name} {block.uri}{_mime(block.mime_type)}]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return f"[resource {resource.uri}{_mime(resource.mime_type)}]\n{resource.text}"
        return f"[resource {resource.uri}{_mime(resource.mime_type)}, {_size(resource.blob)} not shown]"
    return f"[{type(block).__name__} content not shown]"  # pragma: no cover - a block type newer than this code


def _size(base64_text: str) -> str:
    """The decoded size of `base64_text` (its ``=`` padding stands for no bytes)."""
    text = base64_text.strip()
    return f"{len(text) * 3 // 4 - (len(text) - len(text.rstrip('=')))} bytes"


def _mime(mime_type: str | None) -> str:
    return f" ({mime_type})" if mime_type else ""
