"""Messages API stream events in, provider-neutral `ModelEvent`s out (the rules are `Model`'s docstring).

The events, as the API reference lists them, and what each becomes:

- ``message_start``: its ``message.usage`` is held (input and cache counts) for the snapshot below;
- ``content_block_start``: a ``text`` block's initial text -> `ModelTextDelta`; a ``tool_use``
  block -> the call's first `ModelToolCallDelta`, with its whole name; a ``redacted_thinking``
  block -> one `ModelReasoningDelta` carrying its ``data`` as ``redacted``; other blocks (server
  tools, their results) are not ours to run and are skipped;
- ``content_block_delta``: ``text_delta`` -> `ModelTextDelta`, ``input_json_delta`` -> the call's
  argument fragment, ``thinking_delta`` -> `ModelReasoningDelta`, ``signature_delta`` -> an empty
  `ModelReasoningDelta` carrying the ``signature`` (it closes the thinking block);
- ``content_block_stop``, ``ping``: nothing;
- ``message_delta``: the stop reason (held: the finish comes at the end of the body) and the
  cumulative usage -> `ModelUsage`;
- ``message_stop``: the end of the message (nothing is read after it);
- ``error``: raises `ModelError` (see ``_errors``).

Stop reasons: ``end_turn`` and ``stop_sequence`` -> ``STOP``; ``tool_use`` -> ``TOOL_CALLS`` (``STOP``
when the call is the forced answer tool of a structured-output turn); ``max_tokens`` and
``model_context_window_exceeded`` -> ``LENGTH``; ``pause_turn`` and unknown words -> ``OTHER`` with
the word in ``raw``; ``refusal`` -> `ModelError` ``REFUSED`` (a refusal is not an answer).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import cast

import attrs

from ..core import (
    FinishReason,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    Usage,
)
from ..models.protocol import ModelError
from ._errors import stream_error

JsonMap = Mapping[str, object]
_EMPTY: JsonMap = {}

_FINISHES: dict[str, ModelFinish] = {
    "end_turn": ModelFinish(FinishReason.STOP),
    "stop_sequence": ModelFinish(FinishReason.STOP),
    "tool_use": ModelFinish(FinishReason.TOOL_CALLS),
    "max_tokens": ModelFinish(FinishReason.LENGTH),
    "model_context_window_exceeded": ModelFinish(FinishReason.LENGTH, "model_context_window_exceeded"),
}

UNREPORTED = ModelUsage(Usage(requests=1, unreported_requests=1))
"""The usage of a turn whose server sent no usage object: not "0 tokens", but "not reported"."""


def _map(obj: JsonMap, key: str) -> JsonMap:
    value = obj.get(key)
    return cast(JsonMap, value) if isinstance(value, Mapping) else _EMPTY


def _str(obj: JsonMap, key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None


def _int(obj: JsonMap, key: str) -> int | None:
    value = obj.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def decode(data: str) -> JsonMap | None:
    """`data` decoded as a JSON object, or `None` if it is not one."""
    try:
        decoded: object = json.loads(data)
    except ValueError:
        return None
    return cast(JsonMap, decoded) if isinstance(decoded, Mapping) else None


@attrs.define
class _Counts:
    """The usage fields as last reported (``message_start``, then each ``message_delta``'s cumulative counts)."""

    seen: bool = False
    counts: dict[str, int] = attrs.Factory(dict)

    def take(self, usage: JsonMap) -> None:
        for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            value = _int(usage, key)
            if value is not None:
                self.seen = True
                self.counts[key] = value
        thinking = _int(_map(usage, "output_tokens_details"), "thinking_tokens")
        if thinking is not None:
            self.counts["thinking_tokens"] = thinking

    def snapshot(self) -> ModelUsage:
        """`Usage` in the project's terms: input counts every input token, cache reads and writes included."""
        get = self.counts.get
        cached = get("cache_read_input_tokens", 0)
        return ModelUsage(
            Usage(
                input_tokens=get("input_tokens", 0) + cached + get("cache_creation_input_tokens", 0),
                output_tokens=get("output_tokens", 0),
                cached_input_tokens=cached,
                reasoning_tokens=get("thinking_tokens", 0),
                requests=1,
            )
        )


@attrs.define
class MessagesStreamTranslator:
    """Feed it each SSE frame (event name, data) with `feed`, then call `end` when the body ends.

    Args:
        answer_tool: the name of the forced tool whose input is a structured-output answer, if any:
            its argument fragments become text, and its ``tool_use`` stop a ``STOP``.
    """

    answer_tool: str | None = None
    stop: ModelFinish | None = None
    done: bool = False
    """Whether ``message_stop`` has arrived (nothing after it is read)."""
    refusal: str | None = None
    _usage: _Counts = attrs.Factory(_Counts)
    _blocks: dict[int, tuple[str, str | None]] = attrs.Factory(dict)
    """Each open content block by index: its type and, for a tool call, its id."""

    def feed(self, event: str | None, data: str) -> list[ModelEvent]:
        """The events one frame yields; a frame that is not a JSON object yields none.

        Raises:
            ModelError: the server reported an ``error`` event.
        """
        payload = decode(data)
        if payload is None:
            return []
        kind = _str(payload, "type") or event
        match kind:
            case "content_block_delta":
                return self._delta(payload)
            case "content_block_start":
                return self._start(payload)
            case "message_start":
                self._usage.take(_map(_map(payload, "message"), "usage"))
                return []
            case "message_delta":
                return self._message_delta(payload)
            case "message_stop":
                self.done = True
                return []
            case "error":
                raise stream_error(_map(payload, "error"))
            case _:  # ping, content_block_stop, and events added after this was written
                return []

    def _start(self, payload: JsonMap) -> list[ModelEvent]:
        index = _int(payload, "index") or 0
        block = _map(payload, "content_block")
        block_type = _str(block, "type") or ""
        call_id = _str(block, "id")
        self._blocks[index] = (block_type, call_id)
        match block_type:
            case "text":
                text = _str(block, "text")
                return [ModelTextDelta(text)] if text else []
            case "tool_use" if call_id is not None:
                given = _map(block, "input")
                arguments = json.dumps(given, ensure_ascii=False) if given else ""
                if self._is_answer(block):
                    self._blocks[index] = ("answer", None)
                    return [ModelTextDelta(arguments)] if arguments else []
                return [ModelToolCallDelta(call_id, _str(block, "name") or "", arguments)]
            case "thinking":
                thinking = _str(block, "thinking")
                return [ModelReasoningDelta(thinking)] if thinking else []
            case "redacted_thinking":
                return [ModelReasoningDelta("", redacted=_str(block, "data") or "")]
            case _:
                return []

    def _is_answer(self, block: JsonMap) -> bool:
        return self.answer_tool is not None and _str(block, "name") == self.answer_tool

    def _delta(self, payload: JsonMap) -> list[ModelEvent]:
        delta = _map(payload, "delta")
        block_type, call_id = self._blocks.get(_int(payload, "index") or 0, ("", None))
        match _str(delta, "type"):
            case "text_delta":
                text = _str(delta, "text")
                return [ModelTextDelta(text)] if text else []
            case "input_json_delta":
                fragment = _str(delta, "partial_json")
                if not fragment:
                    return []
                if block_type == "answer":
                    return [ModelTextDelta(fragment)]
                return [ModelToolCallDelta(call_id, None, fragment)] if call_id is not None else []
            case "thinking_delta":
                thinking = _str(delta, "thinking")
                return [ModelReasoningDelta(thinking)] if thinking else []
            case "signature_delta":
                signature = _str(delta, "signature")
                return [ModelReasoningDelta("", signature=signature)] if signature else []
            case _:  # citations_delta and deltas added after this was written
                return []

    def _message_delta(self, payload: JsonMap) -> list[ModelEvent]:
        delta = _map(payload, "delta")
        reason = _str(delta, "stop_reason")
        if reason is not None:
            self.stop = self._finish(reason, _map(delta, "stop_details"))
        usage = _map(payload, "usage")
        self._usage.take(usage)
        return [self._usage.snapshot()] if usage and self._usage.seen else []

    def _finish(self, reason: str, details: JsonMap) -> ModelFinish:
        if reason == "refusal":
            category = _str(details, "category")
            explanation = _str(details, "explanation")
            said = ": ".join(part for part in (category, explanation) if part)
            self.refusal = said or "no explanation given"
        if reason == "tool_use" and any(kind == "answer" for kind, _ in self._blocks.values()):
            return ModelFinish(FinishReason.STOP)
        return _FINISHES.get(reason) or ModelFinish(FinishReason.OTHER, reason)

    def end(self) -> list[ModelEvent]:
        """The body ended (cleanly, or broken after the stop reason): the last events of the turn.

        Raises:
            ModelError: ``TRANSPORT`` when no stop reason came (the stream was cut short), or
                ``REFUSED`` when the model stopped with a refusal.
        """
        if self.stop is None:
            raise ModelError(ModelFailureKind.TRANSPORT, "the stream ended before the model's stop reason")
        if self.refusal is not None:
            raise ModelError(ModelFailureKind.REFUSED, f"the model refused ({self.refusal})")
        usage = [] if self._usage.seen else [UNREPORTED]
        return [*usage, self.stop]
