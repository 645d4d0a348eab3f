"""The optional fields of the run's events and items default to "nothing more to say".

Each default is what the docstrings describe: a run started without an id, a tripwire without info, a
permission decision without a rule (and a grant no human gave, with the model's own arguments), a
completed run whose usage is not split by agent, a paused run that spent nothing, an assistant message no
agent is named on, a tool result that is not an error.
"""

from __future__ import annotations

from helikon_fc.core import (
    ApprovalRequested,
    AssistantMessage,
    GuardrailTriggered,
    PermissionDenied,
    PermissionGranted,
    RunCompleted,
    RunPaused,
    RunStarted,
    ToolResult,
    Usage,
)


def test_a_run_started_without_an_id_and_a_tripwire_without_info() -> None:
    """`RunStarted.run_id` and `GuardrailTriggered.info` default to `None`."""
    assert RunStarted("a").run_id is None
    assert GuardrailTriggered("input").info is None


def test_permission_events_default_to_no_rule_no_approval_and_unchanged_arguments() -> None:
    """A denial names no call or rule unless given; a grant names no rule, was not approved by a human and
    carries no replaced arguments."""
    denied = PermissionDenied("rm", "mode forbids it")
    assert (denied.call_id, denied.rule) == (None, None)
    granted = PermissionGranted("c1", "ls", "mode allows it")
    assert granted.rule is None
    assert granted.approved is False
    assert granted.arguments is None


def test_terminal_events_default_to_an_unsplit_usage_and_nothing_spent() -> None:
    """`RunCompleted.usage_by_agent` is empty unless the shell fills it; `RunPaused.usage` is an empty `Usage`."""
    assert RunCompleted(Usage(input_tokens=3)).usage_by_agent == ()
    assert RunPaused((ApprovalRequested("c1", "rm", "{}"),)).usage == Usage()


def test_an_assistant_message_names_no_agent_and_a_result_is_no_error_by_default() -> None:
    """`AssistantMessage.agent` is `None` and `ToolResult.is_error` is false unless given."""
    assert AssistantMessage("hi").agent is None
    assert ToolResult("c1", "ok").is_error is False
    assert ToolResult("c1", "boom", True).is_error is True
