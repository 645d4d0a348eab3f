"""What real OpenAI-compatible servers refuse, as `WireServer` quirks (each a request in, an error response or `None`).

The rules are the failures issue 12 reports from llama-cpp-python's server 0.3.36 (an assistant
message with ``content: null`` -> HTTP 500; streamed tool calls refused with "Automatic streaming
tool choice is not supported") and from servers without ``json_schema`` structured output. The
error bodies are shaped like those servers' errors; only that quoted message is verbatim. Each
quirk rejects a request the way such a server does, so a test proves the provider's
compatibility settings avoid it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from tests.openai.openai_wire import Quirks, RecordedRequest

NULL_CONTENT_500: tuple[int, object] = (
    500,
    {"error": {"code": 500, "message": "Expected 'content' to be a string", "type": "server_error"}},
)
NO_STREAMED_TOOLS_500: tuple[int, object] = (
    500,
    {"error": {"code": 500, "message": "Automatic streaming tool choice is not supported", "type": "server_error"}},
)
NO_JSON_SCHEMA_400: tuple[int, object] = (
    400,
    {"error": {"code": 400, "message": "response_format type json_schema is not supported", "type": "invalid_request"}},
)


def _messages(request: RecordedRequest) -> Sequence[Mapping[str, object]]:
    messages = request.body.get("messages")
    return cast(Sequence[Mapping[str, object]], messages) if isinstance(messages, list) else ()


def null_content(request: RecordedRequest) -> tuple[int, object] | None:
    """An assistant message whose ``content`` is ``null`` or absent breaks the chat template (HTTP 500)."""
    for message in _messages(request):
        if message.get("role") == "assistant" and not isinstance(message.get("content"), str):
            return NULL_CONTENT_500
    return None


def no_streamed_tools(request: RecordedRequest) -> tuple[int, object] | None:
    """A streamed request that offers tools is refused: this server cannot stream tool calls."""
    if request.body.get("stream") is True and request.body.get("tools"):
        return NO_STREAMED_TOOLS_500
    return None


def no_json_schema(request: RecordedRequest) -> tuple[int, object] | None:
    """``response_format: json_schema`` is refused; ``json_object`` is fine."""
    response_format = request.body.get("response_format")
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_schema":
        return NO_JSON_SCHEMA_400
    return None


def all_of(*quirks: Quirks) -> Quirks:
    """The first rejection any of `quirks` makes."""

    def check(request: RecordedRequest) -> tuple[int, object] | None:
        for quirk in quirks:
            rejected = quirk(request)
            if rejected is not None:
                return rejected
        return None

    return check


LOCAL_SERVER = all_of(null_content, no_streamed_tools, no_json_schema)
"""A local server with all three limits (llama-cpp-python's, with a chat format that cannot stream tool calls)."""
