"""What every AG-UI stream must satisfy, checked independently of the adapter; shared by the AG-UI tests.

`stream_problems` lists each rule a stream breaks (validation against the protocol package's models,
one RUN_STARTED first, one terminal last, start/end pairing per message, reasoning span, tool call and
step, and every STATE_DELTA applying); `apply_patch` is an RFC 6902 applier of its own. The tests at
the bottom show the checker catches what it claims to.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

import pydantic
from ag_ui.core import (
    BaseEvent,
    Event,
    EventType,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
)

from helikon_fc import AgentEvent
from helikon_fc.serve.ag_ui import AgUiTranslator

EVENT: pydantic.TypeAdapter[Event] = pydantic.TypeAdapter(Event)
"""Parses any AG-UI event from its JSON, by its ``type``."""

TERMINAL = {EventType.RUN_FINISHED, EventType.RUN_ERROR}

# (opening type, content type, closing type, the field naming the thing)
PAIRS = (
    (EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_CONTENT, EventType.TEXT_MESSAGE_END, "message_id"),
    (EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END, "tool_call_id"),
    (EventType.REASONING_START, None, EventType.REASONING_END, "message_id"),
    (
        EventType.REASONING_MESSAGE_START,
        EventType.REASONING_MESSAGE_CONTENT,
        EventType.REASONING_MESSAGE_END,
        "message_id",
    ),
    (EventType.STEP_STARTED, None, EventType.STEP_FINISHED, "step_name"),
)


def translate_run(
    events: Iterable[AgentEvent], *, thread_id: str = "thread-1", run_id: str = "run-1"
) -> list[BaseEvent]:
    """Every AG-UI event a whole helikon_fc run becomes (no state observed)."""
    translator = AgUiTranslator(thread_id=thread_id, run_id=run_id)
    out: list[BaseEvent] = []
    for event in events:
        translator, translated = translator.translate(event)
        out.extend(translated)
    assert translator.finished
    return out


def parsed(event: BaseEvent) -> BaseEvent:
    """`event` through its wire JSON and back, as the protocol package parses it (raises if it does not validate)."""
    back: BaseEvent = EVENT.validate_json(event.model_dump_json(by_alias=True))
    return back


def stream_problems(events: Sequence[BaseEvent], *, earlier_calls: Iterable[str] = ()) -> list[str]:
    """Each rule of an AG-UI run stream that `events` breaks (empty: a well-formed stream).

    `earlier_calls` are tool calls the thread's earlier runs made, which a result in this run may answer
    (a resumed run's first results answer the calls its paused run made).
    """
    problems: list[str] = []
    for index, event in enumerate(events):
        try:
            if parsed(event) != event:
                problems.append(f"event {index} ({event.type.value}) changes through its JSON")
        except pydantic.ValidationError as exc:
            problems.append(f"event {index} ({event.type.value}) does not validate: {exc}")
    types = [event.type for event in events]
    if not types or types[0] != EventType.RUN_STARTED or types.count(EventType.RUN_STARTED) != 1:
        problems.append("the stream must start with its one RUN_STARTED")
    if not types or types[-1] not in TERMINAL or sum(t in TERMINAL for t in types) != 1:
        problems.append("the stream must end with its one RUN_FINISHED or RUN_ERROR")
    for opening, content, closing, field in PAIRS:
        problems.extend(_pairing(events, opening, content, closing, field))
    problems.extend(_results(events, set(earlier_calls)))
    try:
        final_state(events)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        problems.append(f"a STATE_DELTA does not apply: {exc!r}")
    return problems


def _pairing(
    events: Sequence[BaseEvent], opening: EventType, content: EventType | None, closing: EventType, field: str
) -> list[str]:
    problems: list[str] = []
    open_now: set[str] = set()
    ever: set[str] = set()
    for index, event in enumerate(events):
        if event.type not in (opening, content, closing):
            continue
        key = getattr(event, field)
        if event.type == opening:
            if key in open_now or (key in ever and opening != EventType.STEP_STARTED):
                problems.append(f"event {index}: {opening.value} {key!r} again")
            open_now.add(key)
            ever.add(key)
        elif key not in open_now:
            problems.append(f"event {index}: {event.type.value} {key!r} while it is not open")
        elif event.type == closing:
            open_now.discard(key)
    if open_now:
        problems.append(f"{opening.value} never closed: {sorted(open_now)}")
    return problems


def _results(events: Sequence[BaseEvent], ended: set[str]) -> list[str]:
    problems = []
    for index, event in enumerate(events):
        if isinstance(event, ToolCallEndEvent):
            ended.add(event.tool_call_id)
        elif isinstance(event, ToolCallResultEvent) and event.tool_call_id not in ended:
            problems.append(f"event {index}: TOOL_CALL_RESULT before its call's TOOL_CALL_END (or for no known call)")
    return problems


def final_state(events: Iterable[BaseEvent]) -> Any:
    """The shared state a consumer holds after `events`: the last snapshot with every later delta applied."""
    state: Any = None
    for event in events:
        if isinstance(event, StateSnapshotEvent):
            state = copy.deepcopy(event.snapshot)
        elif isinstance(event, StateDeltaEvent):
            operations: list[dict[str, Any]] = [operation.model_dump(by_alias=True) for operation in event.delta]
            state = apply_patch(state, operations)
    return state


def apply_patch(document: Any, operations: Sequence[dict[str, Any]]) -> Any:
    """`document` with RFC 6902 ``add``/``remove``/``replace`` `operations` applied in order (a copy)."""
    document = copy.deepcopy(document)
    for operation in operations:
        tokens = [token.replace("~1", "/").replace("~0", "~") for token in operation["path"].split("/")[1:]]
        if not tokens:
            if operation["op"] != "replace":
                raise ValueError(f"{operation['op']} of the whole document")
            document = copy.deepcopy(operation["value"])
            continue
        parent = document
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last = tokens[-1]
        if isinstance(parent, list):
            raise ValueError("this applier patches objects only (the adapter replaces lists whole)")
        if operation["op"] == "add":
            parent[last] = copy.deepcopy(operation["value"])
        elif operation["op"] == "remove":
            del parent[last]
        elif operation["op"] == "replace":
            if last not in parent:
                raise KeyError(f"replace of {operation['path']}, which does not exist")
            parent[last] = copy.deepcopy(operation["value"])
        else:
            raise ValueError(f"unexpected op {operation['op']!r}")
    return document


def test_a_well_formed_stream_has_no_problems() -> None:
    """The smallest stream that breaks no rule: RUN_STARTED, a message opened, filled and closed, RUN_FINISHED."""
    from ag_ui.core import TextMessageEndEvent

    events: list[BaseEvent] = [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m", role="assistant"),
        TextMessageContentEvent(message_id="m", delta="hi"),
        TextMessageEndEvent(message_id="m"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    assert stream_problems(events) == []


def test_the_checker_finds_an_unclosed_message_and_a_missing_terminal() -> None:
    """A message never closed and a stream with no terminal event are both reported."""
    events: list[BaseEvent] = [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m", role="assistant"),
        TextMessageContentEvent(message_id="m", delta="hi"),
    ]
    problems = stream_problems(events)
    assert "the stream must end with its one RUN_FINISHED or RUN_ERROR" in problems
    assert "TEXT_MESSAGE_START never closed: ['m']" in problems


def test_the_applier_follows_rfc_6902_for_objects() -> None:
    """add, replace and remove on nested objects, with ``~1`` standing for ``/`` in a key."""
    document = {"a": {"b": 1}, "x/y": 2}
    operations: list[dict[str, Any]] = [
        {"op": "add", "path": "/a/c", "value": [1]},
        {"op": "replace", "path": "/a/b", "value": None},
        {"op": "remove", "path": "/x~1y"},
    ]
    assert apply_patch(document, operations) == {"a": {"b": None, "c": [1]}}
    assert document == {"a": {"b": 1}, "x/y": 2}
