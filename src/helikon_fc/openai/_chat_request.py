"""`ModelRequest` -> the Chat Completions request body.

The conversation becomes ``messages``: the instructions first as a ``system`` message, then each
item in order. Consecutive `ToolCall`s (and the assistant text just before them) become one
``assistant`` message with ``tool_calls``; each `ToolResult` becomes a ``tool`` message. An
assistant message that only calls tools carries ``"content": ""``, never ``null`` or no content:
OpenAI accepts all three, but llama.cpp's server rejects ``null`` (HTTP 500) and its chat
templates fail on a missing ``content``.
`Reasoning` items are dropped: the chat API takes no reasoning text back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Literal, assert_never

from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
    ChatCompletionNamedToolChoiceParam,
    ChatCompletionToolChoiceOptionParam,
    ChatCompletionToolUnionParam,
)
from openai.types.shared_params import FunctionDefinition, ResponseFormatJSONObject, ResponseFormatJSONSchema

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
from ..core.schema import strict_schema


def tool_parameters(tool: ToolDef) -> dict[str, object]:
    """A tool's parameter schema as sent: in strict form when the tool is strict."""
    return dict(strict_schema(tool.parameters) if tool.strict else tool.parameters)


def output_schema_body(output: OutputSchema) -> dict[str, object]:
    """An output schema as sent: in strict form when `output.strict`."""
    return dict(strict_schema(output.schema) if output.strict else output.schema)


def chat_messages(instructions: str | None, items: Iterable[Item]) -> list[ChatCompletionMessageParam]:
    """The ``messages`` array for a conversation."""
    messages: list[ChatCompletionMessageParam] = []
    if instructions:
        messages.append({"role": "system", "content": instructions})
    pending: ChatCompletionAssistantMessageParam | None = None

    def close_pending() -> None:
        nonlocal pending
        if pending is not None:
            messages.append(pending)
            pending = None

    for item in items:
        match item:
            case AssistantMessage(text=text):
                close_pending()
                pending = {"role": "assistant", "content": text}
            case ToolCall(call_id=call_id, name=name, arguments=arguments):
                call: ChatCompletionMessageFunctionToolCallParam = {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
                if pending is None:
                    pending = {"role": "assistant", "content": ""}
                pending["tool_calls"] = [*pending.get("tool_calls", ()), call]
            case Reasoning():
                pass
            case Compacted():
                pass  # the loop sends `visible` views, which hold no markers; a raw log's items are all there
            case SystemMessage(text=text):
                close_pending()
                messages.append({"role": "system", "content": text})
            case UserMessage(text=text):
                close_pending()
                messages.append({"role": "user", "content": text})
            case ToolResult(call_id=call_id, output=output):
                close_pending()
                messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
            case _:
                assert_never(item)
    close_pending()
    return messages


def chat_tools(tools: Iterable[ToolDef]) -> list[ChatCompletionToolUnionParam]:
    """The ``tools`` array; a strict tool is sent in strict form with ``strict: true``."""
    result: list[ChatCompletionToolUnionParam] = []
    for tool in tools:
        function: FunctionDefinition = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool_parameters(tool),
        }
        if tool.strict:
            function["strict"] = True
        result.append({"type": "function", "function": function})
    return result


def chat_tool_choice(choice: str) -> ChatCompletionToolChoiceOptionParam:
    """``auto`` / ``required`` / ``none``, or the name of the one tool the model must call."""
    match choice:
        case "auto" | "required" | "none":
            return choice
        case _:
            pass
    named: ChatCompletionNamedToolChoiceParam = {"type": "function", "function": {"name": choice}}
    return named


def chat_response_format(output: OutputSchema) -> ResponseFormatJSONSchema:
    """``response_format`` asking for JSON that fits `output` (in strict form when `output.strict`)."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": output.name,
            "schema": output_schema_body(output),
            "strict": output.strict,
        },
    }


StructuredOutput = Literal["json_schema", "json_object"]
"""How a chat model asks for structured output: ``response_format`` ``json_schema`` (the schema
enforced by the server), or ``json_object`` (any JSON object, with the schema put in the
instructions) for servers that lack ``json_schema``."""


def json_object_instructions(instructions: str | None, output: OutputSchema) -> str:
    """The instructions with the output schema appended, for servers that only offer ``json_object``."""
    schema = json.dumps(output_schema_body(output), ensure_ascii=False, sort_keys=True)
    ask = (
        f"Reply with one JSON object and nothing else. It must fit this JSON Schema (named {output.name!r}):\n{schema}"
    )
    return f"{instructions}\n\n{ask}" if instructions else ask


def chat_json_object_format() -> ResponseFormatJSONObject:
    """``response_format`` asking for any JSON object (the schema travels in the instructions)."""
    return {"type": "json_object"}
