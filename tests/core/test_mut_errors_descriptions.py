"""Every `AgentError` variant's one-line description (its `str`) and its defaults.

The module says each variant "has structured fields and a one-line description as its `str`": the
CLI, `RunError` and logs show that line, so each is pinned here, fields included.
"""

from __future__ import annotations

import pytest

from helikon_fc.core import (
    AgentError,
    BranchFailure,
    Cancelled,
    GraphFailed,
    GuardrailTripped,
    HandoffCollision,
    HookDenied,
    HookFailed,
    InvalidTransition,
    MaxAgentDepthExceeded,
    MaxHandoffsExceeded,
    MaxIterationsExceeded,
    MaxTurnsExceeded,
    ModelFailed,
    ModelFailureKind,
    OtherError,
    ParallelFailed,
    SessionFailed,
    StructuredOutputInvalid,
    TimedOut,
    ToolFailed,
    UnknownHandoffTarget,
)

DESCRIPTIONS: list[tuple[AgentError, str]] = [
    (MaxTurnsExceeded(3), "max turns (3) exceeded"),
    (MaxAgentDepthExceeded(4, 2), "agent nesting depth (4) exceeded max (2)"),
    (MaxIterationsExceeded(5), "max iterations (5) exceeded without an escalation"),
    (MaxHandoffsExceeded(6), "max handoffs (6) exceeded"),
    (HandoffCollision("to_b", ("a", "b")), "handoff tool name 'to_b' is claimed by more than one of: a, b"),
    (UnknownHandoffTarget("ghost"), "unknown handoff target: ghost"),
    (ModelFailed(ModelFailureKind.RATE_LIMITED, "slow down"), "model failed (rate_limited): slow down"),
    (
        StructuredOutputInvalid(("$.a: missing required field", "$.b: expected integer, got string"), "{}"),
        "invalid structured output after one repair attempt: $.a: missing required field; "
        "$.b: expected integer, got string",
    ),
    (TimedOut(2.5), "run timed out after 2.5 s"),
    (TimedOut(30.0), "run timed out after 30 s"),
    (Cancelled(), "run cancelled"),
    (Cancelled("user pressed stop"), "user pressed stop"),
    (
        ParallelFailed((BranchFailure("x", MaxTurnsExceeded(1)), BranchFailure("y", OtherError("boom")))),
        "2 parallel branch(es) failed: x: max turns (1) exceeded, y: boom",
    ),
    (
        GraphFailed((BranchFailure("n1", OtherError("bad")),), ("n2", "n3")),
        "1 graph node(s) failed: n1: bad; skipped: n2, n3",
    ),
    (GraphFailed((BranchFailure("n1", OtherError("bad")),), ()), "1 graph node(s) failed: n1: bad; skipped: none"),
    (GuardrailTripped("input"), "input guardrail tripwire"),
    (HookDenied("PreToolUse", "not today"), "hook denied PreToolUse: not today"),
    (HookFailed("Stop", "crashed"), "hook failed at Stop: crashed"),
    (ToolFailed("search", "no network"), "tool search failed: no network"),
    (SessionFailed("disk full"), "session failed: disk full"),
    (InvalidTransition("Done", "Start"), "invalid transition from Done on Start"),
    (InvalidTransition("Done", "Start", "already finished"), "invalid transition from Done on Start: already finished"),
    (OtherError("something else"), "something else"),
]


@pytest.mark.parametrize(("error", "line"), DESCRIPTIONS, ids=[line for _, line in DESCRIPTIONS])
def test_each_error_describes_itself_in_one_line(error: AgentError, line: str) -> None:
    """`str(error)` is the variant's one-line description, built from its fields."""
    assert str(error) == line


def test_optional_error_fields_default_to_nothing() -> None:
    """A model failure has no retry hint unless given, a tripwire no info, a bad transition no detail."""
    assert ModelFailed(ModelFailureKind.OTHER, "x").retry_after is None
    assert GuardrailTripped("output").info is None
    assert InvalidTransition("a", "b").detail == ""
    assert Cancelled().reason == "run cancelled"


def test_model_failure_kinds_are_written_by_their_snake_case_values() -> None:
    """The six failure kinds and their wire values (a provider maps its errors onto these)."""
    assert {kind.name: kind.value for kind in ModelFailureKind} == {
        "RATE_LIMITED": "rate_limited",
        "UNAVAILABLE": "unavailable",
        "CONTEXT_LENGTH": "context_length",
        "REFUSED": "refused",
        "TRANSPORT": "transport",
        "OTHER": "other",
    }
