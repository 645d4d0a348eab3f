"""`core.record_codec` by example: what a lean record may refer to, and what it is refused for.

Rules (module docstring of `core.record_codec`): "a reference is only written where the value it names is equal
to the one referred to" (a call id two calls of one answer share names neither, a changed call is written whole);
what a boundary may name is what was recorded "since the previous boundary" (`Seen`); and a stored text that is
not a record, or a reference that names nothing, is refused with an error that says where.
"""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import (
    CallingModel,
    Done,
    ExecutingTools,
    FinalOutput,
    ModelResponse,
    RunCompleted,
    ToolCall,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    Usage,
    WireFormatError,
    to_json,
)
from helikon_fc.core.record_codec import Seen, UnresolvedReference, decode_log, decode_record, encode_log
from helikon_fc.core.records import ActionKind, Boundary, ModelAnswered, RunFinished, RunOpened, ToolFinished

CALL = ToolCall("c0", "t", "{}")
RESULT = ToolResult("c0", "out")
OPENED = RunOpened(agent="a", pattern="llm", fingerprint="f")
ANSWERED = ModelAnswered(response=ModelResponse(tool_calls=(CALL,)))


def _boundary(*appends: object, events: tuple[object, ...] = (), state: object = None) -> str:
    data = {
        "type": "boundary",
        "v": 2,
        "state": state if state is not None else {"type": "calling_model", "turn": 0},
        "appends": list(appends),
        "events": list(events),
        "action": "call_model",
    }
    return json.dumps(data)


def test_seen_follows_what_each_record_makes_nameable() -> None:
    """An answer's calls and the finished results are seen; a boundary or an opening forgets them; the end keeps."""
    seen = Seen().after(ANSWERED).after(ToolFinished(result=RESULT))
    assert dict(seen.calls) == {"c0": CALL}
    assert dict(seen.results) == {"c0": RESULT}
    assert seen.after(RunFinished(terminal=RunCompleted(Usage()))) == seen
    forgot = Seen(calls={}, results={})
    assert seen.after(Boundary(state=CallingModel(1), action=ActionKind.CALL_MODEL)) == forgot
    assert seen.after(OPENED) == forgot
    other = ToolCall("c9", "t", "{}")
    assert dict(seen.after(ModelAnswered(response=ModelResponse(tool_calls=(other,)))).calls) == {"c9": other}
    _, after = encode_log([OPENED, ANSWERED, ToolFinished(result=RESULT)])
    assert after == seen


def test_a_writer_carrying_seen_refers_to_the_records_of_an_earlier_batch() -> None:
    """With the `Seen` of the batch before, a boundary names that batch's calls, and reads back with it."""
    _, seen = encode_log([OPENED, ANSWERED])
    boundary = Boundary(
        state=CallingModel(1), appends=(CALL,), events=(ToolCallItem(CALL),), action=ActionKind.CALL_MODEL
    )
    (text,), _ = encode_log([boundary], seen)
    assert json.loads(text)["appends"] == [{"call": "c0"}]
    assert json.loads(text)["events"] == [{"append": 0}]
    assert decode_record(text, seen) == boundary
    (alone,), _ = encode_log([boundary])
    assert json.loads(alone)["appends"] == [json.loads(to_json(CALL))]


def test_a_call_id_two_calls_share_is_never_referred_to() -> None:
    """When one answer has two calls with one id, a reference could not say which: both are written whole."""
    twin = ToolCall("c0", "t", '{"again": true}')
    answered = ModelAnswered(response=ModelResponse(tool_calls=(CALL, twin)))
    boundary = Boundary(
        state=ExecutingTools(calls=(CALL, twin), rejected=(), turn=0),
        appends=(CALL, twin),
        action=ActionKind.EXECUTE_TOOLS,
    )
    texts, seen = encode_log([OPENED, answered, boundary])
    assert json.loads(texts[2])["appends"] == [json.loads(to_json(CALL)), json.loads(to_json(twin))]
    assert dict(Seen().after(answered).calls) == {}
    assert decode_log(texts) == [OPENED, answered, boundary]
    assert seen == Seen()


def test_state_calls_not_among_the_appends_are_written_whole() -> None:
    """An `ExecutingTools` state names an append only for a call or rejection that is one; the rest is in full."""
    rejected = ToolResult("c1", "no", is_error=True)
    boundary = Boundary(
        state=ExecutingTools(calls=(CALL,), rejected=(rejected,), turn=2),
        appends=(rejected,),
        events=(ToolOutputItem(rejected), ToolCallItem(CALL)),
        action=ActionKind.EXECUTE_TOOLS,
    )
    (text,), _ = encode_log([boundary])
    state = json.loads(text)["state"]
    assert state["calls"] == [json.loads(to_json(CALL))]
    assert state["rejected"] == [{"append": 0}]
    assert state["turn"] == 2
    assert json.loads(text)["events"] == [{"append": 0}, json.loads(to_json(ToolCallItem(CALL)))]
    assert decode_record(text) == boundary


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_boundary({"call": "c0"}), r'\$\.appends: \{"call": "c0"\} names no call recorded since the last boundary'),
        (_boundary({"result": "c0"}), r'\{"result": "c0"\} names no result'),
        (_boundary({"other": "c0"}), r'\{"other": "c0"\} names no other'),
        (
            _boundary({"type": "user_message", "text": "u"}, events=({"append": True},)),
            r'\{"append": true\} names no append \(the boundary has 1\)',
        ),
        (_boundary(events=({"append": -1},)), r'\{"append": -1\} names no append \(the boundary has 0\)'),
        (_boundary(events=({"append": 0},)), r"names no append \(the boundary has 0\)"),
        (_boundary(7, events=({"append": 0},)), "names an append that is not an item"),
        (_boundary({"type": "user_message", "text": "u"}, events=({"append": 0},)), "names an append no event carries"),
        (json.dumps({"type": "boundary", "v": 2, "appends": {}}), r"\$\.appends: expected list, got dict"),
        (json.dumps({"type": "boundary", "v": 2, "appends": [], "events": 3}), r"\$\.events: expected list, got int"),
        (
            _boundary(state={"type": "executing_tools", "calls": "x", "turn": 0}),
            r"\$\.state\.calls: expected list, got str",
        ),
        (
            _boundary(state={"type": "executing_tools", "rejected": {}, "turn": 0}),
            r"\$\.state\.rejected: expected list, got dict",
        ),
        (json.dumps({"type": "model_answered", "v": 2, "deltas": "x"}), r"\$\.deltas: expected list, got str"),
    ],
)
def test_a_reference_that_names_nothing_is_refused_saying_which(text: str, message: str) -> None:
    """A lean record's reference must name something that is there, of the kind it says; its lists must be lists."""
    with pytest.raises(UnresolvedReference, match=message):
        decode_record(text, Seen())


def test_a_call_reference_with_a_known_call_reads_back_and_a_wrong_kind_does_not() -> None:
    """`{"call": ID}` reads the seen call, `{"result": ID}` the seen result: not the other's, not a number's."""
    seen = Seen().after(ANSWERED).after(ToolFinished(result=RESULT))
    assert decode_record(_boundary({"call": "c0"}, {"result": "c0"}), seen).appends == (CALL, RESULT)  # type: ignore[union-attr]
    with pytest.raises(UnresolvedReference, match="names no call"):
        decode_record(_boundary({"call": 0}), seen)
    with pytest.raises(UnresolvedReference, match="names no result"):
        decode_record(_boundary({"result": "c1"}), seen)


def test_a_text_that_is_not_json_or_holds_nan_is_refused_as_the_wire_does() -> None:
    """Not JSON, or JSON's forbidden constants (NaN, Infinity): the wire format's error, never a guess."""
    with pytest.raises(WireFormatError):
        decode_record("{not json")
    with pytest.raises(WireFormatError):
        decode_record('{"type": "run_finished", "x": NaN}')
    with pytest.raises(WireFormatError):
        decode_log(['{"type": "boundary", "v": 2, "appends": [Infinity]}'])


def test_a_format_1_boundary_holding_reference_shapes_is_not_resolved() -> None:
    """Only a record marked ``"v": 2`` is read for references; the same shape unmarked is plain wire data."""
    text = _boundary({"call": "c0"})
    plain = json.loads(text)
    del plain["v"]
    with pytest.raises(WireFormatError):
        decode_record(json.dumps(plain), Seen().after(ANSWERED))
    assert decode_record(_boundary({"call": "c0"}), Seen().after(ANSWERED)).appends == (CALL,)  # type: ignore[union-attr]
    assert decode_record(to_json(OPENED)) == OPENED


def test_a_stored_nan_inside_a_record_is_refused_not_read_as_null() -> None:
    """JSON has no NaN: a stored value holding one is refused, not silently read as another value."""
    text = to_json(Boundary(state=Done(output=FinalOutput(text="x", value=1.5)), action=ActionKind.TERMINATE))
    assert "1.5" in text
    with pytest.raises(WireFormatError):
        decode_record(text.replace("1.5", "NaN"))


def test_a_lean_boundary_whose_state_is_not_an_object_is_refused_as_the_wire_does() -> None:
    """A state that is not a JSON object is the wire format's error (with its path), not a crash."""
    with pytest.raises(WireFormatError):
        decode_record(_boundary(state="executing_tools"))
