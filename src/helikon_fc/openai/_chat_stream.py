"""Chat Completions stream chunks in, provider-neutral `ModelEvent`s out (the rules are `Model`'s docstring).

A chunk carries deltas for ``choices[0]``: ``content`` (text), ``reasoning_content`` or
``reasoning`` (the reasoning text some compatible servers stream), ``refusal``, and
``tool_calls`` fragments keyed by ``index``. Its ``finish_reason`` is the stop reason; with
``stream_options.include_usage`` a last chunk with no choices carries the usage, and the body
ends with ``data: [DONE]``. An ``{"error": ...}`` chunk is a failure mid-stream.

A whole (non-streamed) completion is read as the one chunk it amounts to (`completion_as_chunk`:
each choice's ``message`` as its ``delta``), so both modes yield the same events.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import cast

import attrs

from ..core import ModelEvent, ModelFailureKind, ModelReasoningDelta, ModelTextDelta
from ..models._wire_json import JsonMap, decode_map, get_int, get_list, get_map, get_str
from ..models.protocol import ModelError
from ._errors import reported_error
from ._sse import SseFrame
from ._turn import TurnState, finish_for, usage_from


@attrs.define
class ChatStreamTranslator:
    """Feed it each SSE ``data`` payload with `feed`, then call `end` when the body ends."""

    turn: TurnState = attrs.Factory(TurnState)
    done: bool = False
    """Whether ``data: [DONE]`` has arrived (nothing after it is read)."""

    def feed_frame(self, frame: SseFrame) -> list[ModelEvent]:
        """`feed` with one frame's ``data``."""
        return self.feed(frame.data)

    def feed(self, data: str) -> list[ModelEvent]:
        """The events one frame yields; an unparseable frame yields none.

        Raises:
            ModelError: the server reported an error in the stream.
        """
        if data.strip() == "[DONE]":
            self.done = True
            return []
        chunk = decode_map(data)
        return [] if chunk is None else self._chunk(chunk)

    def _chunk(self, chunk: JsonMap) -> list[ModelEvent]:
        if chunk.get("error") is not None:
            raise reported_error(get_map(chunk, "error"))
        events: list[ModelEvent] = []
        for choice in get_list(chunk, "choices"):
            if get_int(choice, "index") == 0 and self.turn.stop is None:
                events.extend(self._choice(choice))
        usage = get_map(chunk, "usage")
        if usage:
            self.turn.usage_seen = True
            events.append(
                usage_from(
                    usage,
                    input_key="prompt_tokens",
                    output_key="completion_tokens",
                    input_details="prompt_tokens_details",
                    output_details="completion_tokens_details",
                )
            )
        return events

    def feed_completion(self, body: str) -> list[ModelEvent]:
        """The events of a whole (``stream: false``) completion body; `end` follows as for a stream.

        Raises:
            ModelError: the body reports an error, or is not a JSON object (``TRANSPORT``).
        """
        try:
            decoded: object = json.loads(body)
        except ValueError:
            decoded = None
        if not isinstance(decoded, Mapping):
            raise ModelError(ModelFailureKind.TRANSPORT, f"the completion is not a JSON object: {body[:200]!r}")
        self.done = True
        return self._chunk(completion_as_chunk(cast(JsonMap, decoded)))

    def end(self) -> list[ModelEvent]:
        """The body ended; see `TurnState.end`."""
        return self.turn.end()

    def _choice(self, choice: JsonMap) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        delta = get_map(choice, "delta")
        reasoning = get_str(delta, "reasoning_content") or get_str(delta, "reasoning")
        if reasoning:
            events.append(ModelReasoningDelta(reasoning))
        content = get_str(delta, "content")
        if content:
            self.turn.answered = True
            events.append(ModelTextDelta(content))
        refusal = get_str(delta, "refusal")
        if refusal:
            self.turn.refusal.append(refusal)
        calls = self.turn.calls
        for fragment in get_list(delta, "tool_calls"):
            key = str(get_int(fragment, "index"))
            is_new = key not in calls
            calls.start(key, get_str(fragment, "id"))
            if is_new:
                events.extend(calls.complete_all_except(key))
            function = get_map(fragment, "function")
            calls.name_fragment(key, get_str(function, "name") or "")
            arguments = get_str(function, "arguments") or ""
            if arguments:
                events.extend(calls.args_fragment(key, arguments))
                events.extend(calls.name_complete(key))
        finish_reason = get_str(choice, "finish_reason")
        if finish_reason:
            events.extend(calls.flush())
            self.turn.stop = finish_for(finish_reason)
        return events


def completion_as_chunk(completion: JsonMap) -> dict[str, object]:
    """A whole completion as one stream chunk: each ``message`` a ``delta``, each tool call given its ``index``."""
    choices: list[dict[str, object]] = []
    for choice in get_list(completion, "choices"):
        delta = dict(get_map(choice, "message"))
        delta["tool_calls"] = [{**call, "index": i} for i, call in enumerate(get_list(delta, "tool_calls"))]
        choices.append(
            {"index": get_int(choice, "index"), "delta": delta, "finish_reason": choice.get("finish_reason")}
        )
    return {"choices": choices, "usage": completion.get("usage"), "error": completion.get("error")}
