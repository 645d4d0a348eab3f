"""`restore`: a run's records folded into the point to continue from."""

from __future__ import annotations

import pytest

from helikon_fc.core import (
    AssistantMessage,
    CallingModel,
    ExecutingTools,
    MessageOutput,
    ModelResponse,
    ModelSettings,
    RunCompleted,
    TokenDelta,
    ToolCall,
    ToolCallItem,
    ToolResult,
    TurnStarted,
    Usage,
    UserMessage,
    from_json,
    to_json,
)
from helikon_fc.core.records import (
    ActionKind,
    AskedRequest,
    Boundary,
    ModelAnswered,
    RecordLogError,
    RunFinished,
    RunOpened,
    RunRecordBody,
    ToolFinished,
    ToolsOffered,
    fingerprint,
    record_kind,
    restore,
)

OPENED = RunOpened(agent="a", pattern="llm", fingerprint="f", input=(UserMessage("hi"),))
CALL = ToolCall("c1", "t", "{}")
FIRST = Boundary(state=CallingModel(0), events=(TurnStarted(0),), action=ActionKind.CALL_MODEL)
ANSWER = ModelAnswered(response=ModelResponse(tool_calls=(CALL,)), deltas=(TokenDelta("x"),))
TOOLS = Boundary(
    state=ExecutingTools((CALL,), (), 0, Usage(requests=1)),
    appends=(CALL,),
    events=(ToolCallItem(CALL),),
    action=ActionKind.EXECUTE_TOOLS,
)


def test_a_fresh_log_has_no_state() -> None:
    """A log with only its opening record resumes from the start, with the input as conversation."""
    point = restore([OPENED])
    assert point.state is None
    assert point.conversation == (UserMessage("hi"),)
    assert point.next_seq == 1


def test_the_last_boundary_with_nothing_after_it_is_delivered_again() -> None:
    """Events of a boundary with no later record may be undelivered: they go to `redeliver`, not `replayed`."""
    point = restore([OPENED, FIRST])
    assert point.replayed == ()
    assert point.redeliver == (TurnStarted(0),)
    assert point.action is ActionKind.CALL_MODEL


def test_events_keep_record_order_and_appends_extend_the_conversation() -> None:
    """Boundary events and model deltas replay in the order they were recorded."""
    point = restore([OPENED, FIRST, ANSWER, TOOLS, ToolFinished(result=ToolResult("c1", "ok"), escalated=True)])
    assert point.replayed == (TurnStarted(0), TokenDelta("x"), ToolCallItem(CALL))
    assert point.redeliver == ()
    assert point.conversation == (UserMessage("hi"), CALL)
    assert point.tool_results == (ToolResult("c1", "ok"),)
    assert point.escalated
    assert point.response is None
    assert point.next_seq == 5


def test_a_model_answer_after_the_last_boundary_is_pending() -> None:
    """A recorded model answer with no boundary after it is fed, not asked again."""
    point = restore([OPENED, FIRST, ANSWER])
    assert point.response == ANSWER.response
    assert point.replayed == (TurnStarted(0), TokenDelta("x"))


def test_a_finished_log_reports_its_terminal() -> None:
    """The run_finished record ends the log and is reported."""
    done = Boundary(
        state=CallingModel(0),
        events=(MessageOutput(AssistantMessage("bye", "a")), RunCompleted(Usage())),
        action=ActionKind.TERMINATE,
    )
    point = restore([OPENED, done, RunFinished(terminal=RunCompleted(Usage()))])
    assert point.finished == RunFinished(terminal=RunCompleted(Usage()))
    assert point.redeliver == ()


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([], "must start with a run_opened"),
        ([FIRST], "must start with a run_opened"),
        ([OPENED, OPENED], "second run_opened"),
        ([OPENED, RunFinished(terminal=RunCompleted(Usage())), FIRST], "after the run_finished"),
        ([OPENED, FIRST, ToolsOffered(sources=("s",))], "record 2 is a tools_offered record; only record 1"),
    ],
)
def test_a_malformed_log_is_refused(records: list[RunRecordBody], message: str) -> None:
    """A log that does not open first, opens twice or goes on after its end raises `RecordLogError`."""
    with pytest.raises(RecordLogError, match=message):
        restore(records)


def test_records_round_trip_through_the_wire_format_under_their_kind() -> None:
    """Every record reads back equal, and its kind is its wire tag."""
    for record in (OPENED, FIRST, ANSWER, TOOLS, ToolFinished(result=ToolResult("c1", "ok"))):
        text = to_json(record)
        assert from_json(RunRecordBody, text) == record
        assert text.startswith(f'{{"type":"{record_kind(record)}"')


def test_fingerprints_differ_when_definitions_differ() -> None:
    """Equal definitions hash alike, whatever their key order; any change changes the hash."""
    assert fingerprint({"a": 1, "b": [1, 2]}) == fingerprint({"b": [1, 2], "a": 1})
    assert fingerprint({"a": 1}) != fingerprint({"a": 2})


def test_the_tools_a_run_was_offered_are_restored_from_its_second_record() -> None:
    """A `ToolsOffered` right after `RunOpened` is the run's offer; a log without one offers nothing recorded."""
    offered = ToolsOffered(sources=("time",))
    assert restore([OPENED, offered, FIRST]).offered == offered
    assert restore([OPENED, FIRST]).offered is None


def test_an_asked_request_given_only_its_instructions_starts_from_nothing_of_the_log_and_had_nothing_injected() -> None:
    """The defaults of `AskedRequest`: no tools, default settings, no output schema, none of the log's
    conversation kept, no items of its own, no system message injected (also when read from the wire)."""
    asked = AskedRequest(instructions=None)
    assert (asked.tools, asked.settings, asked.output_schema) == ((), ModelSettings(), None)
    assert (asked.kept, asked.items, asked.injected) == (0, (), 0)
    stored = '{"type":"model_answered","response":{"type":"model_response"},"asked":{"instructions":"x"}}'
    expected = ModelAnswered(response=ModelResponse(), asked=AskedRequest(instructions="x"))
    assert from_json(RunRecordBody, stored) == expected
