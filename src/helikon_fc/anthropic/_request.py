"""`ModelRequest` -> the Messages API request body (``POST /v1/messages``).

- The instructions, and any `SystemMessage`s before the first user or assistant item, become the
  top-level ``system`` (one text block each). A `SystemMessage` later in the conversation has no
  place there without moving it, so it is sent where it stands, as a user text block reading
  ``System: <text>``.
- `UserMessage` and `ToolResult` items are ``user`` content; `AssistantMessage`, `ToolCall` and
  signed `Reasoning` items are ``assistant`` content. Consecutive items of one role are merged into
  one message, so roles alternate as the API requires. In a user message, ``tool_result`` blocks
  come first (the API requires it), in the order of the calls they answer.
- A `ToolCall` is a ``tool_use`` block (its arguments decoded: text that is not a JSON object is
  sent as ``{}``, as the agent has already answered it with an error); a `ToolResult` is a
  ``tool_result`` block, with ``is_error: true`` for a failure.
- A `Reasoning` item with a signature is a ``thinking`` block, one with redacted data a
  ``redacted_thinking`` block, both sent back unchanged. Reasoning without either (from another
  provider) is dropped: the API accepts only the thinking blocks it signed.
- Prompt caching (`ModelSettings.prompt_caching`) puts a ``cache_control`` breakpoint on the last
  tool, the last system block and the last block of the conversation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from ..core import (
    AssistantMessage,
    Compacted,
    Item,
    ModelRequest,
    OutputSchema,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolDef,
    ToolResult,
    UserMessage,
)
from ..core.schema import parse_arguments, strict_schema

Block = dict[str, Any]
Message = dict[str, Any]
Role = Literal["user", "assistant"]

StructuredOutput = Literal["json_schema", "tool"]
"""How a structured-output turn asks for JSON: the API's native ``output_config.format`` (``"json_schema"``),
or a tool the model is forced to call whose input is the answer (``"tool"``), for models without it."""

_CACHE: dict[str, str] = {"type": "ephemeral"}
_UNCACHEABLE = frozenset({"thinking", "redacted_thinking"})


def _role(item: Item) -> Role | None:
    match item:
        case UserMessage() | ToolResult() | SystemMessage():
            return "user"
        case AssistantMessage() | ToolCall() | Reasoning():
            return "assistant"
        case Compacted():
            return None
    return None


def _block(item: Item) -> Block | None:
    """The content block of one item, or `None` for items that are not sent."""
    match item:
        case UserMessage(text=text) | AssistantMessage(text=text):
            return {"type": "text", "text": text} if text else None
        case SystemMessage(text=text):
            return {"type": "text", "text": f"System: {text}"}
        case ToolCall(call_id=call_id, name=name, arguments=arguments):
            try:
                arguments_object: object = parse_arguments(arguments)
            except ValueError:
                arguments_object = {}
            return {"type": "tool_use", "id": call_id, "name": name, "input": arguments_object}
        case ToolResult(call_id=call_id, output=output, is_error=is_error):
            result: Block = {"type": "tool_result", "tool_use_id": call_id, "content": output}
            if is_error:
                result["is_error"] = True
            return result
        case Reasoning(text=text, signature=signature, redacted=redacted):
            if redacted is not None:
                return {"type": "redacted_thinking", "data": redacted}
            if signature is not None:
                return {"type": "thinking", "thinking": text, "signature": signature}
            return None
        case Compacted():
            return None
    return None


def system_blocks(instructions: str | None, items: Iterable[Item]) -> tuple[list[Block], list[Item]]:
    """The ``system`` text blocks (the instructions, then the leading `SystemMessage`s) and the items left."""
    rest = list(items)
    blocks: list[Block] = [{"type": "text", "text": instructions}] if instructions else []
    while rest and isinstance(rest[0], SystemMessage | Compacted):
        first = rest.pop(0)
        if isinstance(first, SystemMessage) and first.text:
            blocks.append({"type": "text", "text": first.text})
    return blocks, rest


def messages(items: Iterable[Item]) -> list[Message]:
    """The ``messages`` array: one message per run of same-role items, roles alternating."""
    result: list[Message] = []
    for item in items:
        role, block = _role(item), _block(item)
        if role is None or block is None:
            continue
        if result and result[-1]["role"] == role:
            result[-1]["content"].append(block)
        else:
            result.append({"role": role, "content": [block]})
    for index, message in enumerate(result):
        if message["role"] == "user" and index > 0:
            message["content"] = _results_first(message["content"], result[index - 1]["content"])
    return result


def _results_first(content: list[Block], previous: list[Block]) -> list[Block]:
    """`content` with its ``tool_result`` blocks first, in the order of the ``tool_use`` blocks in `previous`."""
    order = {block["id"]: n for n, block in enumerate(previous) if block["type"] == "tool_use"}
    results = [block for block in content if block["type"] == "tool_result"]
    results.sort(key=lambda block: order.get(block["tool_use_id"], len(order)))
    return results + [block for block in content if block["type"] != "tool_result"]


def tools(defs: Iterable[ToolDef]) -> list[Block]:
    """The ``tools`` array: each `ToolDef` as a custom tool (strict ones in strict form, with ``strict: true``)."""
    result: list[Block] = []
    for tool in defs:
        schema = strict_schema(tool.parameters) if tool.strict else tool.parameters
        entry: Block = {"name": tool.name, "description": tool.description, "input_schema": dict(schema)}
        if tool.strict:
            entry["strict"] = True
        result.append(entry)
    return result


def tool_choice(choice: str | None, parallel: bool | None) -> Block | None:
    """``auto`` / ``required`` (-> ``any``) / ``none`` or a tool's name (-> ``tool``); ``parallel_tool_calls=False``
    becomes ``disable_parallel_tool_use`` (on ``auto`` when no choice was given)."""
    match choice:
        case None:
            chosen: Block | None = {"type": "auto"} if parallel is False else None
        case "auto" | "none":
            chosen = {"type": choice}
        case "required":
            chosen = {"type": "any"}
        case _:
            chosen = {"type": "tool", "name": choice}
    if chosen is not None and parallel is False and chosen["type"] != "none":
        chosen["disable_parallel_tool_use"] = True
    return chosen


def output_schema_body(output: OutputSchema) -> dict[str, object]:
    """An output schema as sent: in strict form when `output.strict`."""
    return dict(strict_schema(output.schema) if output.strict else output.schema)


def output_tool(output: OutputSchema) -> Block:
    """The tool a ``"tool"`` structured-output turn forces: its input is the answer."""
    return {
        "name": output.name,
        "description": f"Give the answer: call this tool once, its input is the whole answer ({output.name}).",
        "input_schema": output_schema_body(output),
    }


def _mark_last(blocks: list[Block]) -> None:
    """Put a cache breakpoint on the last block that can hold one."""
    for block in reversed(blocks):
        if block.get("type") not in _UNCACHEABLE:
            block["cache_control"] = dict(_CACHE)
            return


def request_body(
    model: str, request: ModelRequest, *, max_tokens: int, thinking: dict[str, object] | None, output: StructuredOutput
) -> dict[str, Any]:
    """The whole request body (without ``stream``), keys in a fixed order; unset settings are left out."""
    settings = request.settings
    system, rest = system_blocks(request.instructions, request.items)
    body: dict[str, Any] = {"model": model, "max_tokens": settings.max_output_tokens or max_tokens}
    if system:
        body["system"] = system
    body["messages"] = messages(rest)
    offered = tools(request.tools)
    choice = tool_choice(settings.tool_choice, settings.parallel_tool_calls) if offered else None
    schema = request.output_schema
    if schema is not None and output == "tool":
        offered, choice = [output_tool(schema)], {"type": "tool", "name": schema.name}
    elif schema is not None:
        body["output_config"] = {"format": {"type": "json_schema", "schema": output_schema_body(schema)}}
    if offered:
        body["tools"] = offered
    if choice is not None:
        body["tool_choice"] = choice
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    if settings.top_p is not None:
        body["top_p"] = settings.top_p
    if thinking is not None:
        body["thinking"] = dict(thinking)
    if settings.prompt_caching:
        for blocks in (offered, system, body["messages"][-1]["content"] if body["messages"] else []):
            _mark_last(blocks)
    return body
