"""`core.record_codec`: the stored form of a run's records (record format 2)."""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import (
    CallingModel,
    Done,
    ExecutingTools,
    FinalOutput,
    ModelResponse,
    TokenDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    TurnStarted,
    UserMessage,
    WireFormatError,
    to_json,
)
from helikon_fc.core.record_codec import UnresolvedReference, decode_log, decode_record, encode_log
from helikon_fc.core.records import (
    RECORD_FORMAT_VERSION,
    ActionKind,
    AskedRequest,
    Boundary,
    ModelAnswered,
    RecordLogError,
    RunOpened,
    RunRecordBody,
    ToolFinished,
    restore,
)
from helikon_fc.shell.durable.run_log import decode_records
from helikon_fc.shell.durable.storage import RunRecord

CALLS = (ToolCall("c0", "t", '{"x": 0}'), ToolCall("c1", "t", '{"x": 1}'))
RESULTS = (ToolResult("c0", "zero"), ToolResult("c1", "one"))
ROUND: list[RunRecordBody] = [
    RunOpened(agent="a", pattern="llm", fingerprint="f", input=(UserMessage("go"),)),
    ModelAnswered(
        response=ModelResponse(tool_calls=CALLS),
        deltas=(ToolCallDelta("c0", "t", '{"x": 0}'), ToolCallDelta("c1", "t", '{"x": 1}'), TokenDelta("hm")),
    ),
    Boundary(
        state=ExecutingTools(calls=CALLS, rejected=(), turn=0),
        appends=CALLS,
        events=tuple(ToolCallItem(call) for call in CALLS),
        action=ActionKind.EXECUTE_TOOLS,
    ),
    *(ToolFinished(result=result) for result in RESULTS),
    Boundary(
        state=CallingModel(1),
        appends=RESULTS,
        events=(*(ToolOutputItem(result) for result in RESULTS), TurnStarted(1)),
        action=ActionKind.CALL_MODEL,
    ),
]


def test_a_boundary_refers_to_what_was_recorded_before_it_instead_of_repeating_it() -> None:
    """The calls of the answer and the round's results appear once each in the stored log."""
    texts, _ = encode_log(ROUND)
    executing, settled = json.loads(texts[2]), json.loads(texts[5])
    assert executing["appends"] == [{"call": "c0"}, {"call": "c1"}]
    assert executing["events"] == [{"append": 0}, {"append": 1}]
    assert executing["state"]["calls"] == [{"append": 0}, {"append": 1}]
    assert settled["appends"] == [{"result": "c0"}, {"result": "c1"}]
    assert json.loads(texts[1])["deltas"] == [["c0", "t", '{"x": 0}'], ["c1", "t", '{"x": 1}'], "hm"]
    assert sum(map(len, texts)) < sum(len(to_json(body)) for body in ROUND) * 0.7
    assert decode_log(texts) == ROUND


def test_a_log_of_record_format_1_still_reads() -> None:
    """Records stored as their wire JSON (every run recorded before format 2) read back unchanged."""
    assert decode_log([to_json(body) for body in ROUND]) == ROUND


def test_a_changed_value_is_written_whole_not_referred_to() -> None:
    """An append equal to no recorded call or result is written in full, so it reads back as it is."""
    changed = ToolResult("c0", "zero, again")
    log = [*ROUND[:5], Boundary(state=CallingModel(1), appends=(changed,), action=ActionKind.CALL_MODEL)]
    texts, _ = encode_log(log)
    assert json.loads(texts[-1])["appends"] == [json.loads(to_json(changed))]
    assert decode_log(texts) == log


def test_a_reference_to_nothing_recorded_is_refused_with_its_record() -> None:
    """A boundary read without the records it refers to fails, saying which reference and record."""
    texts, _ = encode_log(ROUND)
    with pytest.raises(UnresolvedReference, match=r'\{"call": "c0"\} names no call recorded since the last boundary'):
        decode_record(texts[2])
    stored = [RunRecord(seq, "x", text) for seq, text in enumerate(texts)]
    with pytest.raises(RecordLogError, match=r"run 'r', record 5 \(x\): \$\.appends: \{\"result\": \"c0\"\}"):
        decode_records("r", [stored[0], stored[5]])


def test_a_bad_index_or_compact_delta_is_refused() -> None:
    """An out-of-range append index and a malformed compact delta are errors, not guesses."""
    bad_index = '{"type":"boundary","v":2,"state":{"type":"calling_model","turn":0},"appends":[],'
    bad_index += '"events":[{"append":3}],"action":"call_model"}'
    with pytest.raises(UnresolvedReference, match="names no append"):
        decode_record(bad_index)
    with pytest.raises(UnresolvedReference, match="a tool call delta is"):
        decode_record('{"type":"model_answered","v":2,"response":{"type":"model_response"},"deltas":[["c"]]}')


def test_a_value_json_cannot_hold_fails_as_the_wire_does() -> None:
    """A boundary holding a NaN is refused with the wire format's error, not stored."""
    bad = Boundary(state=Done(output=FinalOutput(text="x", value=float("nan"))), action=ActionKind.TERMINATE)
    with pytest.raises(WireFormatError):
        encode_log([bad])


def test_a_log_of_a_newer_record_format_is_refused() -> None:
    """`restore` refuses a log whose opening names a record format newer than this one."""
    opened = RunOpened(agent="a", pattern="llm", fingerprint="f", version=RECORD_FORMAT_VERSION + 1)
    with pytest.raises(RecordLogError, match=f"record format {RECORD_FORMAT_VERSION + 1}, newer"):
        restore([opened])


def test_a_model_answer_keeps_what_was_asked_and_its_latency_and_leaves_them_off_when_unknown() -> None:
    """The lean form of a model answer carries `asked` and `latency` when set (so a recording can show
    what was asked, and how long the answer took), and leaves both keys out when `None`."""
    asked = AskedRequest(instructions="be brief", kept=1, items=(UserMessage("summary"),), injected=2)
    answered = ModelAnswered(response=ModelResponse(text="hi"), asked=asked, latency=0.25)
    (text,), _ = encode_log([answered])
    assert json.loads(text)["asked"]["instructions"] == "be brief"
    assert json.loads(text)["latency"] == 0.25
    assert decode_log([text]) == [answered]
    (bare,), _ = encode_log([ModelAnswered(response=ModelResponse(text="hi"))])
    assert "asked" not in json.loads(bare) and "latency" not in json.loads(bare)
