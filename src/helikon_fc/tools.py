"""Tools: the `Tool` protocol, `function_tool` and the type-to-schema machinery behind it.

- `Tool`, `ToolContext`, `ToolOutput`, `ToolError`: what a tool is and what it may answer;
- `function_tool`, `FunctionTool`: a typed Python function as a tool (its docstring documents it);
- `tool_effect`: the `ToolEffect` a tool declares (the permission modes decide by it);
- `schema_for`, `decode`, `DecodeError`, `output_schema_for`, `strict_schema_for`: Python types as
  JSON Schema, and JSON decoded into them;
- `execute_tool_call`: run one tool call as the agent does (for testing a tool on its own);
- `sync_tools_inline`: run synchronous tools on the trio thread (for virtual-time tests).
"""

from __future__ import annotations

from ._public import claim
from .shell.tools.function_tool import (
    FunctionTool as FunctionTool,
    function_tool as function_tool,
    sync_tools_inline as sync_tools_inline,
)
from .shell.tools.tool import (
    Tool as Tool,
    ToolContext as ToolContext,
    ToolError as ToolError,
    ToolOutput as ToolOutput,
    tool_effect as tool_effect,
)
from .shell.tools.tool_exec import execute_tool_call as execute_tool_call
from .shell.tools.type_schema import (
    DecodeError as DecodeError,
    decode as decode,
    output_schema_for as output_schema_for,
    schema_for as schema_for,
    strict_schema_for as strict_schema_for,
)

__all__ = [
    "DecodeError",
    "FunctionTool",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "decode",
    "execute_tool_call",
    "function_tool",
    "output_schema_for",
    "schema_for",
    "strict_schema_for",
    "sync_tools_inline",
    "tool_effect",
]

claim(__name__, globals(), __all__)
