"""The error of an MCP server that cannot be used."""

from __future__ import annotations

from ..shell.tools.tool_source import ToolSourceError


class MCPServerError(ToolSourceError):
    """An MCP server could not be started, did not answer ``initialize`` in time, or offered tools that
    cannot be used (a schema the checker refuses); the message names the server, and quotes its stderr
    when it has one. A run using the server fails with this message before any model call."""
