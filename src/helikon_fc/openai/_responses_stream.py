"""Responses API stream events in, provider-neutral `ModelEvent`s out (the rules are `Model`'s docstring).

The events read (each SSE frame's JSON has a ``type``): ``response.output_text.delta``,
``response.refusal.delta``, ``response.reasoning_summary_text.delta`` and
``response.reasoning_text.delta``, ``response.output_item.added`` / ``.done`` and
``response.function_call_arguments.delta`` / ``.done`` for function calls (keyed by
``output_index``), the terminal ``response.completed`` / ``response.incomplete`` (stop reason and
usage) and ``response.failed`` / ``error`` (failures). Other events are ignored.
"""

from __future__ import annotations

import attrs

from ..core import FinishReason, ModelEvent, ModelFinish, ModelReasoningDelta, ModelTextDelta
from ..models._wire_json import JsonMap, decode_map, get_int, get_map, get_str
from ._errors import reported_error, stream_error
from ._sse import SseFrame
from ._turn import TurnState, finish_for, usage_from


@attrs.define
class ResponsesStreamTranslator:
    """Feed it each SSE frame with `feed`, then call `end` when the body ends."""

    turn: TurnState = attrs.Factory(TurnState)
    done: bool = attrs.field(default=False, init=False)
    """Always false: a Responses stream has no end marker, it ends with the body."""

    def feed_frame(self, frame: SseFrame) -> list[ModelEvent]:
        """`feed` with one frame's event name and ``data``."""
        return self.feed(frame.event, frame.data)

    def feed(self, event: str | None, data: str) -> list[ModelEvent]:
        """The events one frame yields; an unparseable or unknown frame yields none.

        Raises:
            ModelError: the server reported an error or a failed response.
        """
        payload = decode_map(data)
        if payload is None:
            return []
        kind = get_str(payload, "type") or event or ""
        if kind == "error":
            raise reported_error(get_map(payload, "error") or payload)
        if kind == "response.failed":
            error = get_map(get_map(payload, "response"), "error")
            raise stream_error(get_str(error, "code"), None, get_str(error, "message") or "the response failed")
        if self.turn.stop is not None:
            return []
        return self._event(kind, payload)

    def end(self) -> list[ModelEvent]:
        """The body ended; see `TurnState.end`."""
        return self.turn.end()

    def _event(self, kind: str, payload: JsonMap) -> list[ModelEvent]:
        calls = self.turn.calls
        key = str(get_int(payload, "output_index"))
        match kind:
            case "response.output_text.delta":
                text = get_str(payload, "delta")
                if text:
                    self.turn.answered = True
                    return [ModelTextDelta(text)]
            case "response.refusal.delta":
                self.turn.refusal.append(get_str(payload, "delta") or "")
            case "response.reasoning_summary_text.delta" | "response.reasoning_text.delta":
                text = get_str(payload, "delta")
                if text:
                    return [ModelReasoningDelta(text)]
            case "response.output_item.added":
                item = get_map(payload, "item")
                if get_str(item, "type") == "function_call":
                    return self._call_fields(key, item, whole=False)
            case "response.output_item.done":
                item = get_map(payload, "item")
                if get_str(item, "type") == "function_call":
                    return self._call_fields(key, item, whole=True)
            case "response.function_call_arguments.delta":
                events = calls.args_fragment(key, get_str(payload, "delta") or "")
                return events + calls.name_complete(key) if calls.has_name(key) else events
            case "response.function_call_arguments.done":
                return self._call_fields(key, payload, whole=True)
            case "response.completed" | "response.incomplete":
                return self._terminal(kind, get_map(payload, "response"))
            case _:
                pass
        return []

    def _call_fields(self, key: str, fields: JsonMap, *, whole: bool) -> list[ModelEvent]:
        """A function call's name (and, when `whole` and no deltas carried them, its whole arguments).

        The name is reported with the first argument delta, or when the call is done if none came.
        """
        calls = self.turn.calls
        is_new = key not in calls
        calls.start(key, get_str(fields, "call_id"))
        events: list[ModelEvent] = calls.complete_all_except(key) if is_new else []
        calls.set_name(key, get_str(fields, "name") or "")
        if whole:
            if not calls.args_seen(key):
                events.extend(calls.args_fragment(key, get_str(fields, "arguments") or ""))
            if calls.has_name(key):
                events.extend(calls.name_complete(key))
        return events

    def _terminal(self, kind: str, response: JsonMap) -> list[ModelEvent]:
        events = self.turn.calls.flush()
        usage = get_map(response, "usage")
        if usage:
            self.turn.usage_seen = True
            events.append(
                usage_from(
                    usage,
                    input_key="input_tokens",
                    output_key="output_tokens",
                    input_details="input_tokens_details",
                    output_details="output_tokens_details",
                )
            )
        if kind == "response.incomplete":
            self.turn.stop = finish_for(get_str(get_map(response, "incomplete_details"), "reason") or "incomplete")
        elif len(self.turn.calls):
            self.turn.stop = ModelFinish(FinishReason.TOOL_CALLS)
        else:
            self.turn.stop = ModelFinish(FinishReason.STOP)
        return events
