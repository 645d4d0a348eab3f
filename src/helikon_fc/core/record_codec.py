"""The stored form of the durable records (record format 2): what a run's log holds, written once.

A record value (`core.records`) goes to JSON as `to_json` writes it, except that the stored form
refers back instead of repeating. Three records carry the same tool calls in one step (the model
answer, the boundary's state, its appends and its events), and a round's results come back in the
next boundary's appends and events. Format 2 writes each item once:

- a `ModelAnswered` is marked ``"v": 2`` and writes its deltas compactly: a `TokenDelta` as its
  text, a `ToolCallDelta` as ``[call_id, name, args_delta]``, any other event in its wire form;
- a `Boundary` is marked ``"v": 2``. An append that is a tool call of the model answer recorded
  since the previous boundary is ``{"call": CALL_ID}``, one that is the result of a `ToolFinished`
  recorded since then is ``{"result": CALL_ID}``. An event that carries an append (`ToolCallItem`,
  `ToolOutputItem`, `MessageOutput`) is ``{"append": INDEX}``, and so is a call or rejected result
  of an `ExecutingTools` state that is one of the appends;
- every other record, and every part not referred to, is in its wire form.

A reference is only written where the value it names is equal to the one referred to, so
`decode_log(encode_log(...))` gives back equal records. Format-1 records (every record in its
wire form, as runs recorded before this format were stored) read unchanged.

The codec is a pure function of the records and a small frozen `Seen` (the calls and results
recorded since the last boundary) that the writer carries from one batch to the next.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, assert_never

import attrs

from .events import MessageOutput, TokenDelta, ToolCallDelta, ToolCallItem, ToolOutputItem, TurnStarted
from .items import AssistantMessage, Item, ToolCall, ToolResult
from .model import ModelResponse
from .records import (
    Boundary,
    ModelAnswered,
    RecordLogError,
    RunFinished,
    RunOpened,
    RunRecordBody,
    ToolFinished,
    ToolsOffered,
)
from .states import CallingModel, ExecutingTools
from .usage import Usage
from .wire import from_json, structure_data, to_json, unstructure_data

__all__ = ["Seen", "decode_log", "decode_record", "encode_log"]

LEAN = 2
"""The ``"v"`` mark of a record in the lean form of format 2."""

_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False, separators=(",", ":"))

_CARRIERS: Mapping[type, type] = {ToolCallItem: ToolCall, ToolOutputItem: ToolResult, MessageOutput: AssistantMessage}
"""The events that carry one append, and the class of what they carry."""

_CARRIER_TAGS: Mapping[str, str] = {
    "tool_call": "tool_call_item",
    "tool_result": "tool_output_item",
    "assistant_message": "message_output",
}
"""The wire tag of the event that carries an item, by the item's tag."""


class UnresolvedReference(RecordLogError):
    """A lean record refers to a value nothing recorded before it holds."""


def _frozen_calls(calls: Mapping[str, ToolCall]) -> Mapping[str, ToolCall]:
    return MappingProxyType(dict(calls))


def _frozen_results(results: Mapping[str, ToolResult]) -> Mapping[str, ToolResult]:
    return MappingProxyType(dict(results))


@attrs.frozen
class Seen:
    """The tool calls and results recorded since the last boundary, by call id (what a boundary may name)."""

    calls: Mapping[str, ToolCall] = attrs.field(factory=dict, converter=_frozen_calls)
    results: Mapping[str, ToolResult] = attrs.field(factory=dict, converter=_frozen_results)

    def after(self, body: RunRecordBody) -> Seen:
        """What is seen once `body` is recorded after the records this was taken from."""
        calls, results = dict(self.calls), dict(self.results)
        _see(body, calls, results)
        return Seen(calls, results)


def _see(body: RunRecordBody, calls: dict[str, ToolCall], results: dict[str, ToolResult]) -> None:
    """Update `calls` and `results` (in place) for `body` recorded next."""
    match body:
        case ModelAnswered():
            calls.clear()
            calls.update(_unique_calls(body.response.tool_calls))
        case ToolFinished():
            results[body.result.call_id] = body.result
        case Boundary() | RunOpened():
            calls.clear()
            results.clear()
        case RunFinished() | ToolsOffered():
            pass
        case _:
            assert_never(body)


def _unique_calls(calls: Sequence[ToolCall]) -> dict[str, ToolCall]:
    """`calls` by call id, leaving out ids that more than one call has (a reference must name one)."""
    found: dict[str, ToolCall] = {}
    shared: set[str] = set()
    for call in calls:
        if call.call_id in found:
            shared.add(call.call_id)
        found[call.call_id] = call
    for call_id in shared:
        del found[call_id]
    return found


# Writing.


def _usage(usage: Usage) -> dict[str, object]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_input_tokens": usage.cached_input_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
        "requests": usage.requests,
        "unreported_requests": usage.unreported_requests,
    }


def _tool_call(call: ToolCall) -> dict[str, object]:
    return {"type": "tool_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments}


def _tool_result(result: ToolResult) -> dict[str, object]:
    return {"type": "tool_result", "call_id": result.call_id, "output": result.output, "is_error": result.is_error}


def _response(response: ModelResponse) -> dict[str, object]:
    """The wire form of `response`; ``"model"`` only when a model other than the one asked answered
    (so the records of every other call stay as they were, and read back to the same default)."""
    data: dict[str, object] = {
        "type": "model_response",
        "text": response.text,
        "reasoning": response.reasoning,
        "tool_calls": [_tool_call(call) for call in response.tool_calls],
        "usage": _usage(response.usage),
        "finish_reason": response.finish_reason.value,
        "reasoning_blocks": [unstructure_data(block) for block in response.reasoning_blocks],
    }
    if response.model is not None:
        data["model"] = response.model
    return data


def _tool_finished(body: ToolFinished) -> dict[str, object]:
    return {
        "type": "tool_finished",
        "result": _tool_result(body.result),
        "escalated": body.escalated,
        "events": [_data(event) for event in body.events],
    }


_FAST: Mapping[type, Any] = {
    Usage: _usage,
    ToolCall: _tool_call,
    ToolResult: _tool_result,
    ModelResponse: _response,
    ToolFinished: _tool_finished,
    TurnStarted: lambda event: {"type": "turn_started", "turn": event.turn},
    CallingModel: lambda state: {"type": "calling_model", "turn": state.turn, "usage": _usage(state.usage)},
}
"""Hand-written wire forms of the values every step records (`unstructure_data` gives the same data, slower)."""


def _data(value: object) -> Any:
    """`value`'s wire form as JSON data."""
    fast = _FAST.get(type(value))
    return fast(value) if fast is not None else unstructure_data(value)


def encode_log(bodies: Sequence[RunRecordBody], seen: Seen | None = None) -> tuple[list[str], Seen]:
    """The stored JSON of `bodies`, recorded in this order after the records `seen` was taken from
    (`None`: at the start of a log, or of a writer that refers to nothing before it), and what is seen after them.

    Raises:
        WireFormatError: a record holds something JSON cannot represent.
    """
    calls = dict(seen.calls) if seen is not None else {}
    results = dict(seen.results) if seen is not None else {}
    texts: list[str] = []
    for body in bodies:
        texts.append(_encode(body, calls, results))
        _see(body, calls, results)
    return texts, Seen(calls, results)


def _encode(body: RunRecordBody, calls: Mapping[str, ToolCall], results: Mapping[str, ToolResult]) -> str:
    try:
        if isinstance(body, Boundary):
            return _ENCODER.encode(_lean_boundary(body, calls, results))
        if isinstance(body, ModelAnswered):
            return _ENCODER.encode(_lean_answer(body))
        return _ENCODER.encode(_data(body))
    except (TypeError, ValueError):
        return to_json(body)  # the value cannot be written: to_json raises, saying where


def _lean_answer(body: ModelAnswered) -> dict[str, object]:
    deltas: list[object] = []
    for event in body.deltas:
        if type(event) is TokenDelta:
            deltas.append(event.text)
        elif type(event) is ToolCallDelta:
            deltas.append([event.call_id, event.name, event.args_delta])
        else:
            deltas.append(_data(event))
    data: dict[str, object] = {"type": "model_answered", "v": LEAN, "response": _data(body.response), "deltas": deltas}
    if body.asked is not None:
        data["asked"] = _data(body.asked)
    if body.latency is not None:
        data["latency"] = body.latency
    return data


def _lean_boundary(
    body: Boundary, calls: Mapping[str, ToolCall], results: Mapping[str, ToolResult]
) -> dict[str, object]:
    appends: list[object] = []
    where: dict[Item, int] = {}
    for index, item in enumerate(body.appends):
        where.setdefault(item, index)
        if type(item) is ToolCall and calls.get(item.call_id) == item:
            appends.append({"call": item.call_id})
        elif type(item) is ToolResult and results.get(item.call_id) == item:
            appends.append({"result": item.call_id})
        else:
            appends.append(_data(item))
    events: list[object] = []
    for event in body.events:
        carried = _CARRIERS.get(type(event))
        at = where.get(getattr(event, "item")) if carried is not None else None  # noqa: B009 - union attribute
        if at is not None and type(body.appends[at]) is carried:
            events.append({"append": at})
        else:
            events.append(_data(event))
    state = body.state
    if type(state) is ExecutingTools:
        data = {
            "type": "executing_tools",
            "calls": [_ref_or_data(call, where) for call in state.calls],
            "rejected": [_ref_or_data(result, where) for result in state.rejected],
            "turn": state.turn,
            "usage": _usage(state.usage),
        }
    else:
        data = _data(state)
    return {
        "type": "boundary",
        "v": LEAN,
        "state": data,
        "appends": appends,
        "events": events,
        "action": body.action.value,
    }


def _ref_or_data(item: Item, where: Mapping[Item, int]) -> object:
    index = where.get(item)
    return {"append": index} if index is not None else _data(item)


# Reading.


def decode_log(texts: Sequence[str]) -> list[RunRecordBody]:
    """The records stored as `texts` (a run's log, or its start, oldest first), in either format.

    Raises:
        WireFormatError: a text is not a stored record (the message has the path to the fault).
        UnresolvedReference: a lean record refers to nothing recorded before it.
    """
    calls: dict[str, ToolCall] = {}
    results: dict[str, ToolResult] = {}
    bodies: list[RunRecordBody] = []
    for text in texts:
        body = _decode(text, calls, results)
        _see(body, calls, results)
        bodies.append(body)
    return bodies


def decode_record(text: str, seen: Seen | None = None) -> RunRecordBody:
    """One stored record, read after the records `seen` was taken from (`None`: nothing before it).

    Raises:
        WireFormatError: `text` is not a stored record (the message has the path to the fault).
        UnresolvedReference: a lean record refers to nothing recorded before it.
    """
    return _decode(text, seen.calls if seen is not None else {}, seen.results if seen is not None else {})


def _decode(text: str, calls: Mapping[str, ToolCall], results: Mapping[str, ToolResult]) -> RunRecordBody:
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return from_json(RunRecordBody, text)  # type: ignore[no-any-return]  # raises the wire's own error
    if isinstance(data, dict) and data.get("v") == LEAN:
        del data["v"]
        if data.get("type") == "model_answered":
            data["deltas"] = [_delta_data(delta) for delta in _list(data.get("deltas", []), "deltas")]
        elif data.get("type") == "boundary":
            _splice_boundary(data, calls, results)
    body: RunRecordBody = structure_data(RunRecordBody, data)
    return body


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _list(value: object, where: str) -> list[object]:
    if not isinstance(value, list):
        raise UnresolvedReference(f"$.{where}: expected list, got {type(value).__name__}")
    return value


def _delta_data(delta: object) -> object:
    if isinstance(delta, str):
        return {"type": "token_delta", "text": delta}
    if isinstance(delta, list):
        if len(delta) != 3:
            raise UnresolvedReference(f"$.deltas: a tool call delta is [call_id, name, args_delta], got {delta!r}")
        call_id, name, args_delta = delta
        return {"type": "tool_call_delta", "call_id": call_id, "name": name, "args_delta": args_delta}
    return delta


def _splice_boundary(data: dict[str, Any], calls: Mapping[str, ToolCall], results: Mapping[str, ToolResult]) -> None:
    """Put the values a lean boundary refers to in place of its references (in their wire form)."""
    appends = [_resolve_append(element, calls, results) for element in _list(data.get("appends", []), "appends")]
    data["appends"] = appends
    data["events"] = [_resolve_carrier(element, appends) for element in _list(data.get("events", []), "events")]
    state = data.get("state")
    if isinstance(state, dict) and state.get("type") == "executing_tools":
        for key in ("calls", "rejected"):
            if key in state:
                state[key] = [_resolve_index(element, appends) for element in _list(state[key], f"state.{key}")]


def _resolve_append(element: object, calls: Mapping[str, ToolCall], results: Mapping[str, ToolResult]) -> object:
    if not (isinstance(element, dict) and "type" not in element and len(element) == 1):
        return element
    ((key, call_id),) = element.items()
    known: Mapping[str, Item] | None = calls if key == "call" else results if key == "result" else None
    if known is None or not isinstance(call_id, str) or call_id not in known:
        raise UnresolvedReference(f"$.appends: {json.dumps(element)} names no {key} recorded since the last boundary")
    return unstructure_data(known[call_id])


def _referred(element: object, appends: Sequence[object]) -> dict[str, Any] | None:
    """The append a ``{"append": INDEX}`` reference names (`None` for anything else)."""
    if not (isinstance(element, dict) and "type" not in element and set(element) == {"append"}):
        return None
    index = element["append"]
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(appends):
        raise UnresolvedReference(f"{json.dumps(element)} names no append (the boundary has {len(appends)})")
    target = appends[index]
    if not isinstance(target, dict):
        raise UnresolvedReference(f"{json.dumps(element)} names an append that is not an item")
    return target


def _resolve_carrier(element: object, appends: Sequence[object]) -> object:
    target = _referred(element, appends)
    if target is None:
        return element
    tag = _CARRIER_TAGS.get(str(target.get("type")))
    if tag is None:
        raise UnresolvedReference(f"$.events: {json.dumps(element)} names an append no event carries")
    return {"type": tag, "item": target}


def _resolve_index(element: object, appends: Sequence[object]) -> object:
    target = _referred(element, appends)
    return element if target is None else target
