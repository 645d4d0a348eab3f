"""Retired tags still read: ``not_implemented_phase`` (an `AgentError` no run ever produced) is read
as the `OtherError` with the same text, and never written again."""

from __future__ import annotations

import pytest

from helikon_fc.core import AgentError, AgentEvent, OtherError, RunFailed, WireFormatError, from_json, to_json
from helikon_fc.core.record_codec import decode_record
from helikon_fc.core.records import RunFinished

OLD = '{"type": "not_implemented_phase", "feature": "compaction"}'


def problems(tp: object, text: str) -> tuple[str, ...]:
    with pytest.raises(WireFormatError) as caught:
        from_json(tp, text)
    return caught.value.problems


def test_an_old_not_implemented_phase_reads_as_the_other_error_with_the_same_text() -> None:
    error: AgentError = from_json(AgentError, OLD)
    assert error == OtherError("not implemented: compaction")
    assert str(error) == "not implemented: compaction"


def test_it_is_written_back_as_that_other_error() -> None:
    assert to_json(from_json(AgentError, OLD)) == '{"type":"other_error","message":"not implemented: compaction"}'


def test_an_old_run_failed_event_with_it_reads() -> None:
    event: AgentEvent = from_json(AgentEvent, f'{{"type": "run_failed", "error": {OLD}}}')
    assert event == RunFailed(OtherError("not implemented: compaction"))


def test_an_old_stored_record_with_it_reads() -> None:
    error = '{"type":"not_implemented_phase","feature":"approval"}'
    text = f'{{"type":"run_finished","terminal":{{"type":"run_failed","error":{error}}}}}'
    assert decode_record(text) == RunFinished(terminal=RunFailed(OtherError("not implemented: approval")))


def test_an_old_document_is_read_as_strictly_as_any_other() -> None:
    assert problems(AgentError, '{"type": "not_implemented_phase"}') == ("$.feature: missing field",)
    assert problems(AgentError, '{"type": "not_implemented_phase", "feature": 1}') == (
        "$.feature: expected str, got int",
    )
    assert problems(AgentEvent, '{"type": "run_failed", "error": {"type": "not_implemented_phase", "x": "y"}}') == (
        "$.error.feature: missing field",
        "$.error.x: unexpected field",
    )


def test_the_retired_tag_is_no_longer_offered_and_belongs_to_no_other_union() -> None:
    (unknown,) = problems(AgentError, '{"type": "no_such_error"}')
    assert unknown.startswith('$.type: unknown AgentError type "no_such_error" (expected one of: cancelled, ')
    assert "not_implemented_phase" not in unknown
    (other,) = problems(AgentEvent, OLD)
    assert other.startswith('$.type: unknown AgentEvent type "not_implemented_phase"')
