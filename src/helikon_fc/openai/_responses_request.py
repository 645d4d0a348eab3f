"""`ModelRequest` -> the Responses API request body.

The instructions go in ``instructions``; the conversation becomes ``input``: messages as
``{"role", "content"}`` items, each `ToolCall` a ``function_call`` item and each `ToolResult` a
``function_call_output`` item. `Reasoning` items are dropped: the API only takes back reasoning
items it produced itself (with their ids), which a plain text cannot stand for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from openai.types.responses import (
    FunctionToolParam,
    ResponseFormatTextJSONSchemaConfigParam,
    ResponseInputItemParam,
    ToolChoiceFunctionParam,
)
from openai.types.responses.response_create_params import ToolChoice

from ..core import (
    AssistantMessage,
    Compacted,
    Item,
    OutputSchema,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolDef,
    ToolResult,
    UserMessage,
)
from ._chat_request import output_schema_body, tool_parameters


def responses_input(items: Iterable[Item]) -> list[ResponseInputItemParam]:
    """The ``input`` array for a conversation."""
    result: list[ResponseInputItemParam] = []
    for item in items:
        match item:
            case SystemMessage(text=text):
                result.append({"role": "system", "content": text})
            case UserMessage(text=text):
                result.append({"role": "user", "content": text})
            case AssistantMessage(text=text):
                result.append({"role": "assistant", "content": text})
            case ToolCall(call_id=call_id, name=name, arguments=arguments):
                result.append({"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments})
            case ToolResult(call_id=call_id, output=output):
                result.append({"type": "function_call_output", "call_id": call_id, "output": output})
            case Reasoning():
                pass
            case Compacted():
                pass  # the loop sends `visible` views, which hold no markers; a raw log's items are all there
            case _:
                assert_never(item)
    return result


def responses_tools(tools: Iterable[ToolDef]) -> list[FunctionToolParam]:
    """The ``tools`` array; a strict tool is sent in strict form with ``strict: true``."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool_parameters(tool),
            "strict": tool.strict,
        }
        for tool in tools
    ]


def responses_tool_choice(choice: str) -> ToolChoice:
    """``auto`` / ``required`` / ``none``, or the name of the one tool the model must call."""
    match choice:
        case "auto" | "required" | "none":
            return choice
        case _:
            named: ToolChoiceFunctionParam = {"type": "function", "name": choice}
            return named


def responses_text_format(output: OutputSchema) -> ResponseFormatTextJSONSchemaConfigParam:
    """``text.format`` asking for JSON that fits `output` (in strict form when `output.strict`)."""
    return {"type": "json_schema", "name": output.name, "schema": output_schema_body(output), "strict": output.strict}
