"""`to_json` / `from_json`: shapes on the wire, strict reading, and errors that name the path to the fault."""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import (
    AgentError,
    AgentEvent,
    Conversation,
    FinalOutput,
    FinishReason,
    GuardrailTriggered,
    HandoffItem,
    Item,
    JsonValue,
    LoopState,
    MaxTurnsExceeded,
    ModelFinish,
    ModelRequest,
    ParallelFailed,
    RunFailed,
    RunStarted,
    StructuredOutputFailed,
    TimedOut,
    ToolCall,
    ToolCallItem,
    ToolDef,
    ToolResult,
    TransitionOutcome,
    Usage,
    UserMessage,
    WireFormatError,
    from_json,
    to_json,
)


def problems(tp: object, text: str) -> tuple[str, ...]:
    with pytest.raises(WireFormatError) as caught:
        from_json(tp, text)
    assert str(caught.value) == "; ".join(caught.value.problems)
    return caught.value.problems


def test_union_members_carry_a_snake_case_type_tag_first() -> None:
    """Each union member is written with its snake_case ``"type"`` tag as the first key."""
    assert to_json(ToolCall("c", "f", "{}")) == '{"type":"tool_call","call_id":"c","name":"f","arguments":"{}"}'
    assert list(json.loads(to_json(RunFailed(MaxTurnsExceeded(2))))) == ["type", "error"]
    assert json.loads(to_json(RunFailed(MaxTurnsExceeded(2))))["error"] == {"type": "max_turns_exceeded", "limit": 2}


def test_handoff_item_writes_from_and_to() -> None:
    """`HandoffItem` is written with ``from`` / ``to`` and read back from them."""
    text = to_json(HandoffItem("triage", "billing"))
    assert text == '{"type":"handoff_item","from":"triage","to":"billing"}'
    assert from_json(HandoffItem, text) == HandoffItem("triage", "billing")
    assert problems(AgentEvent, '{"type":"handoff_item","from_agent":"a","to":"b"}') == (
        "$.from: missing field",
        "$.from_agent: unexpected field",
    )


def test_tuples_come_back_as_tuples_and_conversations_as_conversations() -> None:
    """Tuples and `Conversation`s are JSON arrays on the wire and their own types again on the way back."""
    failed = StructuredOutputFailed(("a", "b"), "x")
    back = from_json(StructuredOutputFailed, to_json(failed))
    assert back == failed and isinstance(back.schema_errors, tuple)
    request = ModelRequest(instructions=None, items=Conversation([UserMessage("hi"), ToolResult("c", "o")]))
    assert json.loads(to_json(request))["items"] == [
        {"type": "user_message", "text": "hi"},
        {"type": "tool_result", "call_id": "c", "output": "o", "is_error": False},
    ]
    read = from_json(ModelRequest, to_json(request))
    assert isinstance(read.items, Conversation) and read == request
    events = (RunStarted("a"), RunFailed(TimedOut(1.5)))
    assert from_json(tuple[AgentEvent, ...], to_json(events)) == events
    assert from_json(list[AgentEvent], to_json(events)) == list(events)
    assert problems(tuple[AgentEvent, ...], '"ab"') == ("$: expected list, got str",)
    assert problems(list[AgentEvent], '{"type": "run_started"}') == ("$: expected list, got object",)


def test_enums_are_written_by_value() -> None:
    """Enums are written by their value."""
    assert to_json(ModelFinish(FinishReason.TOOL_CALLS)) == '{"type":"model_finish","reason":"tool_calls","raw":null}'
    assert problems(ModelFinish, '{"type":"model_finish","reason":"TOOL_CALLS","raw":null}') == (
        '$.reason: expected one of "stop", "length", "tool_calls", "content_filter", "other", got "TOOL_CALLS"',
    )


def test_json_values_pass_through_and_are_checked() -> None:
    """`JsonValue` fields hold any JSON and are checked to be JSON, both ways."""
    info: JsonValue = {"nested": [1, 2.5, None, True, {"k": "v"}]}
    assert from_json(GuardrailTriggered, to_json(GuardrailTriggered("input_policy", info))).info == info
    with pytest.raises(WireFormatError, match="expected a JSON value, got set"):
        to_json(GuardrailTriggered("x", {"bad": {1, 2}}))  # type: ignore[dict-item]
    with pytest.raises(WireFormatError, match="expected a finite number"):
        to_json(FinalOutput("x", float("nan")))
    assert problems(FinalOutput, '{"text":"x","value":NaN,"structured":false}') == (
        "$: invalid JSON: NaN is not valid JSON",
    )


def test_reading_is_strict_about_scalar_types() -> None:
    """No coercion: a string is not an int, an int is not a string, a bool is not an int, a float is not an int."""
    assert problems(Usage, '{"input_tokens":"1"}') == ("$.input_tokens: expected int, got str",)
    assert problems(Usage, '{"input_tokens":true}') == ("$.input_tokens: expected int, got bool",)
    assert problems(Usage, '{"input_tokens":1.0}') == ("$.input_tokens: expected int, got float",)
    assert problems(Item, '{"type":"user_message","text":1}') == ("$.text: expected str, got int",)
    assert problems(Item, '{"type":"tool_result","call_id":"c","output":"o","is_error":1}') == (
        "$.is_error: expected bool, got int",
    )
    assert problems(AgentError, '{"type":"timed_out","seconds":"5"}') == ("$.seconds: expected float, got str",)
    assert from_json(AgentError, '{"type":"timed_out","seconds":5}') == TimedOut(5.0)


def test_errors_name_the_path_to_each_bad_field() -> None:
    """Bad input raises `WireFormatError` naming the path to each bad field, however deep."""
    text = json.dumps(
        {
            "next_state": {"type": "calling_model", "turn": 1},
            "events": [
                {"type": "run_started", "agent": "a"},
                {"type": "turn_started", "turn": 0},
                {"type": "tool_call_item", "item": {"type": "tool_call", "call_id": 7, "name": "f", "arguments": ""}},
            ],
            "next_action": {"type": "terminate"},
        }
    )
    assert problems(TransitionOutcome, text) == ("$.events[2].item.call_id: expected str, got int",)


def test_unknown_and_missing_tags_are_reported_with_the_choices() -> None:
    """An unknown or missing ``"type"`` tag names the union and the tags it accepts."""
    nested = '{"type":"run_failed","error":{"type":"parallel_failed","failures":[{"key":"a","error":{"type":"x"}}]}}'
    (message,) = problems(AgentEvent, nested)
    assert message.startswith('$.error.failures[0].error.type: unknown AgentError type "x" (expected one of: ')
    (missing,) = problems(Item, '{"text":"hi"}')
    assert missing.startswith("$.type: missing field (the Item tag, one of: assistant_message, compacted, reasoning,")
    assert problems(ToolCall, '{"type":"tool_result","call_id":"c","name":"f","arguments":""}') == (
        '$.type: expected type tag "tool_call", got "tool_result"',
    )
    assert problems(ToolCall, '{"call_id":"c","name":"f","arguments":""}') == (
        '$.type: expected type tag "tool_call", got missing',
    )


def test_missing_and_unexpected_fields_and_wrong_shapes() -> None:
    """Missing fields, unexpected fields and values of the wrong JSON shape are each named."""
    assert problems(AgentEvent, '{"type":"run_started"}') == ("$.agent: missing field",)
    assert problems(AgentEvent, '{"type":"run_started","agent":"a","when":1}') == ("$.when: unexpected field",)
    assert problems(AgentEvent, "[]") == ("$: expected object, got list",)
    assert problems(ParallelFailed, '{"type":"parallel_failed","failures":{}}') == (
        "$.failures: expected list, got object",
    )
    assert problems(ModelRequest, '{"instructions":null,"items":"hi"}') == ("$.items: expected list, got str",)
    assert problems(AgentError, '{"type":"max_turns_exceeded","limit":null}') == ("$.limit: expected int, got null",)


def test_text_that_is_not_json_is_a_wire_format_error() -> None:
    """Invalid JSON raises `WireFormatError` (a `ValueError`), never `json.JSONDecodeError` or a cattrs error."""
    with pytest.raises(ValueError, match=r"^\$: invalid JSON: Expecting value"):
        from_json(Usage, "")
    assert problems(Usage, "{'input_tokens': 1}")[0].startswith("$: invalid JSON: Expecting property name")
    assert problems(Usage, '{"input_tokens": 1')[0].startswith("$: invalid JSON:")
    assert problems(Usage, "[" * 100_000) == ("$: invalid JSON: nested too deeply",)
    deep_info = '{"type":"guardrail_triggered","kind":"k","info":' + "[" * 900 + "]" * 900 + "}"
    deep_event = from_json(GuardrailTriggered, deep_info)
    assert isinstance(deep_event.info, list) and to_json(deep_event) == deep_info
    assert issubclass(WireFormatError, ValueError)


def test_bytes_are_accepted() -> None:
    """`from_json` reads UTF-8 bytes as well as text."""
    assert from_json(UserMessage, '{"type":"user_message","text":"é"}'.encode()) == UserMessage("é")


def test_a_loop_state_carries_its_error_and_usage() -> None:
    """A `LoopState` round-trips through its union, nested error and usage included."""
    from helikon_fc.core import Failed

    state = Failed(ParallelFailed(()), Usage(requests=3))
    read: LoopState = from_json(LoopState, to_json(state))
    assert read == state
    assert json.loads(to_json(ToolCallItem(ToolCall("c", "f", "{}"))))["item"]["type"] == "tool_call"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (GuardrailTriggered("k", [{1: "x"}]), "$.info[0]: expected str object keys, got int"),  # type: ignore[dict-item]
        (GuardrailTriggered("k", [1, float("nan")]), "$.info[1]: expected a finite number, got nan"),
        (GuardrailTriggered("k", {"a": [True, [float("-inf")]]}), "$.info.a[1][0]: expected a finite number, got -inf"),
        (GuardrailTriggered("k", [[{2}]]), "$.info[0][0]: expected a JSON value, got set"),  # type: ignore[list-item]
        (
            (RunStarted("a"), GuardrailTriggered("k", [None, {"b c": [b"x"]}])),  # type: ignore[list-item]
            '$[1].info[1]["b c"][0]: expected a JSON value, got bytes',
        ),
        (FinalOutput("x", [{"k": float("inf")}]), "$.value[0].k: expected a finite number, got inf"),
    ],
)
def test_writing_checks_json_values_inside_lists_and_names_the_path(value: object, problem: str) -> None:
    """A non-JSON value (a non-string key, NaN, a set, bytes) inside a list is refused, never written
    silently (``[{1: "x"}]`` is not ``[{"1": "x"}]``), and the message names its path from the root."""
    with pytest.raises(WireFormatError) as caught:
        to_json(value)
    assert caught.value.problems == (problem,)


def test_errors_raised_by_a_class_while_reading_keep_their_message_and_path() -> None:
    """An exception a class raises when built from the wire (a bad schema in a `ToolDef`) becomes one
    problem at the path of the value, with the exception's own message."""
    tool = '{"name":"f","description":"","parameters":{"type":"nope"}}'
    (message,) = problems(ToolDef, tool)
    assert message.startswith("$: tool 'f': parameters: invalid JSON Schema: ")
    (nested,) = problems(tuple[ToolDef, ...], f"[{tool.replace('nope', 'string')}, {tool}]")
    assert nested.startswith("$[1]: tool 'f': parameters: invalid JSON Schema: ")
    (in_field,) = problems(ModelRequest, f'{{"instructions":null,"items":[],"tools":[{tool}]}}')
    assert in_field.startswith("$.tools[0]: tool 'f': parameters: invalid JSON Schema: ")


def test_an_exception_without_a_message_is_named_by_its_type() -> None:
    """A fault whose exception has no message is still shown, by the exception's type."""
    from helikon_fc.core.wire import _flatten

    assert _flatten(KeyError(), ".a") == [(".a", "KeyError")]
    assert _flatten(ValueError("bad"), "[0]") == [("[0]", "bad")]


def test_a_value_json_cannot_hold_is_named_by_its_path_from_the_root_of_what_is_written() -> None:
    """`to_json` locates a fault inside a `JsonValue` field from the root of the value written
    (``$.info.bad[1]``), not from the field (``$value...``): the message says where to look."""
    with pytest.raises(WireFormatError) as caught:
        to_json(GuardrailTriggered("x", {"bad": [1, {2}]}))  # type: ignore[list-item]
    assert caught.value.problems == ("$.info.bad[1]: expected a JSON value, got set",)
