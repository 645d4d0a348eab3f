"""Tools from Model Context Protocol servers: ``LlmAgent(tools=[..., MCPServerStdio("cmd")])``; an agent
served as an MCP tool: ``await serve_mcp(agent)``.

Needs the ``mcp`` extra (``pip install 'helikon_fc[mcp]'``). See ``docs/mcp.md``.
"""

from . import _sdk as _sdk  # first: without the SDK, say what to install
from ._errors import MCPServerError as MCPServerError
from ._results import render_block as render_block
from ._serve import serve_mcp as serve_mcp
from ._server import MCPServerHTTP as MCPServerHTTP, MCPServerStdio as MCPServerStdio
from ._tools import MCPTool as MCPTool, annotated_effect as annotated_effect

__all__ = [
    "MCPServerError",
    "MCPServerHTTP",
    "MCPServerStdio",
    "MCPTool",
    "annotated_effect",
    "render_block",
    "serve_mcp",
]
