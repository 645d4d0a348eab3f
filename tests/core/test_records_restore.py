"""`core.records` by example: the action kinds, what `restore` folds from each record, and the fingerprint.

Rules (docstrings of `core.records`): "a log of a newer version is refused" (this reads format 2); a
`Resumption` holds "every model answer recorded", "the call id of every tool call recorded as finished",
"the permission events recorded with those results, by call id" and "whether the escalate signal was raised
during the recorded part"; an error names the record by its index and kind; the fingerprint is "a short
stable hash of an agent definition given as JSON (sorted keys, compact)".
"""

from __future__ import annotations

import hashlib

import pytest

from helikon_fc.core import (
    AwaitApproval,
    CallingModel,
    CallModel,
    Conversation,
    ExecuteTools,
    InvalidTransition,
    ModelRequest,
    ModelResponse,
    PerformHandoff,
    RunCompleted,
    RunFailed,
    Terminate,
    ToolCall,
    ToolResult,
    TurnStarted,
    Usage,
)
from helikon_fc.core.events import PermissionGranted
from helikon_fc.core.json_value import JsonValue
from helikon_fc.core.records import (
    RECORD_FORMAT_VERSION,
    ActionKind,
    Boundary,
    ModelAnswered,
    RecordLogError,
    Resumption,
    RunFinished,
    RunOpened,
    RunRecordBody,
    ToolFinished,
    action_kind,
    fingerprint,
    is_terminal,
    restore,
)

OPENED = RunOpened(agent="a", pattern="llm", fingerprint="f")
CALL = ToolCall("c1", "t", "{}")
BOUNDARY = Boundary(state=CallingModel(0), events=(TurnStarted(0),), action=ActionKind.CALL_MODEL)


def test_each_action_has_its_kind_and_stored_name() -> None:
    """`action_kind` names each next action; the names are what a stored boundary holds."""
    request = ModelRequest(instructions=None, items=Conversation())
    kinds = [
        action_kind(CallModel(request)),
        action_kind(ExecuteTools(calls=(CALL,))),
        action_kind(AwaitApproval(pending=(CALL,))),
        action_kind(PerformHandoff(target="b", transcript=Conversation())),
        action_kind(Terminate()),
    ]
    assert [kind.value for kind in kinds] == [
        "call_model",
        "execute_tools",
        "await_approval",
        "perform_handoff",
        "terminate",
    ]


def test_this_reads_record_format_2_and_refuses_3() -> None:
    """A log opened in format 2 restores; one opened in format 3 is newer than this package reads."""
    assert RECORD_FORMAT_VERSION == 2
    assert restore([RunOpened(agent="a", pattern="llm", fingerprint="f", version=2)]).state is None
    with pytest.raises(RecordLogError, match="record format 3, newer than the 2"):
        restore([RunOpened(agent="a", pattern="llm", fingerprint="f", version=3)])


def test_a_fresh_resumption_has_raised_nothing_and_continues_at_seq_1() -> None:
    """Nothing recorded but the opening: no escalation, and the next record is seq 1."""
    point = restore([OPENED])
    assert point == Resumption(opened=OPENED)
    assert point.escalated is False
    assert point.next_seq == 1
    assert ToolFinished(result=ToolResult("c1", "x")).escalated is False
    assert RunFinished(terminal=RunCompleted(Usage())).escalated is False


def test_restore_collects_answers_finished_calls_and_their_permission_events() -> None:
    """Every answer in order; every finished call id in order; the permission events of those that have any."""
    first, second = ModelResponse(text="one"), ModelResponse(tool_calls=(CALL,))
    granted = (PermissionGranted("c1", "t", "allowed"),)
    point = restore(
        [
            OPENED,
            BOUNDARY,
            ModelAnswered(response=first),
            BOUNDARY,
            ModelAnswered(response=second),
            ToolFinished(result=ToolResult("c1", "x"), events=granted),
            ToolFinished(result=ToolResult("c2", "y")),
        ]
    )
    assert point.answers == (first, second)
    assert point.response == second
    assert point.finished_calls == ("c1", "c2")
    assert point.tool_results == (ToolResult("c1", "x"), ToolResult("c2", "y"))
    assert point.tool_events == (("c1", granted),)
    assert point.escalated is False
    assert point.next_seq == 7


def test_escalation_is_remembered_once_raised() -> None:
    """One escalated tool call is enough; a later one that is not does not lower the signal."""
    raised: list[RunRecordBody] = [OPENED, BOUNDARY, ToolFinished(result=ToolResult("c1", "x"), escalated=True)]
    assert restore(raised).escalated is True
    assert restore([*raised, ToolFinished(result=ToolResult("c2", "y"))]).escalated is True
    assert restore([*raised[:2], ToolFinished(result=ToolResult("c2", "y"))]).escalated is False
    ended = RunFinished(terminal=RunCompleted(Usage()), escalated=True)
    assert restore([OPENED, ended]).escalated is True


def test_an_error_names_the_record_by_index_and_kind() -> None:
    """A record after the end is named by its position in the log and its stored kind."""
    finished = RunFinished(terminal=RunCompleted(Usage()))
    with pytest.raises(RecordLogError, match=r"^record 2 \(boundary\) comes after the run_finished record$"):
        restore([OPENED, finished, BOUNDARY])
    with pytest.raises(RecordLogError, match=r"^record 1 is a second run_opened record$"):
        restore([OPENED, OPENED])


def test_only_completion_and_failure_end_a_run() -> None:
    """`is_terminal`: `RunCompleted` and `RunFailed` end a run; any other event does not."""
    assert is_terminal(RunCompleted(Usage())) is True
    assert is_terminal(RunFailed(InvalidTransition("CallingModel", "Start"))) is True
    assert is_terminal(TurnStarted(0)) is False


def test_the_fingerprint_is_a_stable_hash_of_the_compact_sorted_json() -> None:
    """The first 32 hex digits of SHA-256 over the definition's JSON, keys sorted, compact, text not escaped."""
    definition: JsonValue = {"tools": ["café"], "name": "a"}
    text = '{"name":"a","tools":["café"]}'
    assert fingerprint(definition) == hashlib.sha256(text.encode()).hexdigest()[:32]
    assert len(fingerprint(definition)) == 32
