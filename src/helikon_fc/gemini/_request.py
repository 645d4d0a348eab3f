"""`ModelRequest` -> the body of a ``generateContent`` / ``streamGenerateContent`` request.

- ``systemInstruction``: the instructions, then any `SystemMessage` items that open the
  conversation (a later `SystemMessage` is sent in place, as ``user`` text: Gemini has no
  system role inside ``contents``).
- ``contents``: `UserMessage` and `ToolResult` items as ``user`` parts; `AssistantMessage` and
  `ToolCall` (a ``functionCall`` part) items as ``model`` parts. `Reasoning` items are not sent:
  thought summaries are the model's own output, not input it reads back (the signatures carry
  its reasoning from turn to turn), as for the OpenAI providers. Consecutive items of one role
  share one content, so a turn's parallel calls travel together and so do their results; the
  results are put in the order of their calls. A call keeps the ``id`` the API gave it; an id
  this provider made up (older models give none, see `synthetic_call_id`) is not sent; each
  result carries its call's name (and id, when sent) and takes its call's place. Each call, and
  each answer text, that came with a thought signature gets it back (`ThoughtSignatures`).
- A `ToolResult` becomes ``functionResponse.response``: ``{"output": text}``, or
  ``{"error": text}`` when it is an error (the two keys the API reference names).
- ``tools``: one ``functionDeclarations`` list, each tool's JSON Schema as
  ``parametersJsonSchema`` (as given: Gemini has no strict mode); ``toolConfig`` from
  `ModelSettings.tool_choice` (``auto`` -> ``AUTO``, ``required`` -> ``ANY``, ``none`` -> ``NONE``,
  a tool's name -> ``ANY`` limited to that function).
- ``generationConfig``: ``temperature``, ``topP``, ``maxOutputTokens``, ``thinkingConfig``
  (``includeThoughts``) when asked, and for structured output ``responseMimeType:
  application/json`` with the schema as ``responseJsonSchema``.
  `ModelSettings.parallel_tool_calls` and ``previous_response_id`` have no Gemini counterpart
  and are not sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import assert_never

from ..core import (
    AssistantMessage,
    Compacted,
    Item,
    ModelRequest,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolDef,
    ToolResult,
    UserMessage,
)
from ._signatures import ThoughtSignatures

Part = dict[str, object]
Content = dict[str, object]

_SYNTHETIC = re.compile(r"^call_[0-9a-f]{12}_\d+$")


def synthetic_call_id(prefix: str, index: int) -> str:
    """The id given to call `index` of a turn that came without one: ``call_<12 hex digits>_<index>``.

    `prefix` is ``call_`` and the start of the request body's SHA-256, so the same request
    gives the same ids (a replay, a retry) and two turns of one conversation never share one.
    """
    return f"{prefix}_{index}"


def is_synthetic(call_id: str) -> bool:
    """Whether `call_id` was made up by `synthetic_call_id` (and so is not sent back as an ``id``)."""
    return _SYNTHETIC.match(call_id) is not None


def _signed(part: Part, signature: str | None) -> Part:
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def _arguments(arguments: str) -> object:
    """A call's arguments as the object the API wants (text that is not a JSON object: an empty object)."""
    try:
        decoded: object = json.loads(arguments)
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


class _Contents:
    """Builds ``contents``: parts appended by role, consecutive parts of one role sharing a content."""

    def __init__(self) -> None:
        self.contents: list[Content] = []
        self.calls: dict[str, tuple[int, str]] = {}
        """Each call id seen: its place in the conversation and its function's name."""
        self._places: dict[int, int] = {}
        """Each function response part (by identity): the place of the call it answers."""

    def add(self, role: str, part: Part) -> None:
        if self.contents and self.contents[-1]["role"] == role:
            parts = self.contents[-1]["parts"]
            assert isinstance(parts, list)
            parts.append(part)
        else:
            self.contents.append({"role": role, "parts": [part]})

    def call(self, call: ToolCall, signature: str | None) -> None:
        self.calls.setdefault(call.call_id, (len(self.calls), call.name))
        function: dict[str, object] = {"name": call.name, "args": _arguments(call.arguments)}
        if not is_synthetic(call.call_id):
            function["id"] = call.call_id
        self.add("model", _signed({"functionCall": function}, signature))

    def result(self, result: ToolResult) -> None:
        place, name = self.calls.get(result.call_id, (len(self.calls), result.call_id))
        response = {"error": result.output} if result.is_error else {"output": result.output}
        function: dict[str, object] = {"name": name, "response": response}
        if not is_synthetic(result.call_id):
            function["id"] = result.call_id
        part: Part = {"functionResponse": function}
        self._places[id(part)] = place
        self.add("user", part)

    def in_call_order(self) -> list[Content]:
        """The contents, each one's function responses put in the order of their calls (other parts stay put)."""
        for content in self.contents:
            parts = content["parts"]
            assert isinstance(parts, list)
            places = [i for i, part in enumerate(parts) if "functionResponse" in part]
            ordered = sorted((parts[i] for i in places), key=lambda part: self._places[id(part)])
            for place, part in zip(places, ordered, strict=True):
                parts[place] = part
        return self.contents


def contents_of(items: Iterable[Item], signatures: ThoughtSignatures) -> tuple[list[str], list[Content]]:
    """The conversation as ``contents``, and the texts of the `SystemMessage`s that open it (for
    ``systemInstruction``)."""
    builder = _Contents()
    opening: list[str] = []
    for item in items:
        match item:
            case SystemMessage(text=text):
                if builder.contents:
                    builder.add("user", {"text": text})
                else:
                    opening.append(text)
            case UserMessage(text=text):
                builder.add("user", {"text": text})
            case AssistantMessage(text=text):
                builder.add("model", _signed({"text": text}, signatures.get("text", text)))
            case Reasoning():
                pass  # see the module docstring
            case ToolCall() as call:
                builder.call(call, signatures.get("call", call.call_id))
            case ToolResult() as result:
                builder.result(result)
            case Compacted():
                pass  # the loop sends `visible` views, which hold no markers
            case _:
                assert_never(item)
    return opening, builder.in_call_order()


def function_declarations(tools: Iterable[ToolDef]) -> list[dict[str, object]]:
    """The ``functionDeclarations`` of the request's tools."""
    return [
        {"name": tool.name, "description": tool.description, "parametersJsonSchema": dict(tool.parameters)}
        for tool in tools
    ]


def tool_config(choice: str) -> dict[str, object]:
    """``toolConfig`` for `ModelSettings.tool_choice`."""
    match choice:
        case "auto":
            config: dict[str, object] = {"mode": "AUTO"}
        case "required":
            config = {"mode": "ANY"}
        case "none":
            config = {"mode": "NONE"}
        case _:
            config = {"mode": "ANY", "allowedFunctionNames": [choice]}
    return {"functionCallingConfig": config}


def generation_config(request: ModelRequest, *, include_thoughts: bool) -> dict[str, object]:
    """``generationConfig``: only the settings that were set."""
    settings = request.settings
    config: dict[str, object] = {}
    if settings.temperature is not None:
        config["temperature"] = settings.temperature
    if settings.top_p is not None:
        config["topP"] = settings.top_p
    if settings.max_output_tokens is not None:
        config["maxOutputTokens"] = settings.max_output_tokens
    if include_thoughts:
        config["thinkingConfig"] = {"includeThoughts": True}
    if request.output_schema is not None:
        config["responseMimeType"] = "application/json"
        config["responseJsonSchema"] = dict(request.output_schema.schema)
    return config


def request_body(
    request: ModelRequest, signatures: ThoughtSignatures, *, include_thoughts: bool = False
) -> dict[str, object]:
    """The whole request body for `request`."""
    opening, contents = contents_of(request.items, signatures)
    system = [text for text in (request.instructions, *opening) if text]
    body: dict[str, object] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": text} for text in system]}
    if request.tools:
        body["tools"] = [{"functionDeclarations": function_declarations(request.tools)}]
        if request.settings.tool_choice:
            body["toolConfig"] = tool_config(request.settings.tool_choice)
    config = generation_config(request, include_thoughts=include_thoughts)
    if config:
        body["generationConfig"] = config
    return body
