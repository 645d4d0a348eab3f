"""`AgentEvent`: the one typed stream a run is observed through.

Twenty-one variants in six families: lifecycle, raw deltas (live, as the model produces them),
semantic items (the same content re-aggregated once a turn settles), transitions, control
signals, and the three terminal outcomes (completed, failed, paused for approval). Exactly one
terminal event ends every run, last.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from .errors import AgentError
from .items import AssistantMessage, ToolCall, ToolResult
from .json_value import JsonValue
from .usage import AgentUsage, ModelShare, Usage

# Lifecycle


@attrs.frozen
class RunStarted:
    """A run of `agent` began. Always the first event of a run.

    `run_id` is the id a durable run is recorded under (`Runner(config, store=...)`), `None` otherwise.
    """

    agent: str
    run_id: str | None = None


@attrs.frozen
class TurnStarted:
    """Model turn `turn` (0-based) is about to call the model."""

    turn: int


# Raw deltas


@attrs.frozen
class TokenDelta:
    """A fragment of answer text, as the model streamed it."""

    text: str


@attrs.frozen
class ReasoningDelta:
    """A fragment of exposed reasoning, as the model streamed it."""

    text: str


@attrs.frozen
class ToolCallDelta:
    """A fragment of a tool call, as the model streamed it; `name` is set once per call."""

    call_id: str
    name: str | None
    args_delta: str


# Semantic items


@attrs.frozen
class MessageOutput:
    """The complete assistant message of a settled turn."""

    item: AssistantMessage


@attrs.frozen
class ToolCallItem:
    """One complete tool call of a settled turn."""

    item: ToolCall


@attrs.frozen
class ToolOutputItem:
    """The result of one tool call (an error result included)."""

    item: ToolResult


@attrs.frozen
class HandoffItem:
    """Control passed from `from_agent` to `to_agent` (serialized as ``from`` / ``to``)."""

    from_agent: str
    to_agent: str


# Transitions


@attrs.frozen
class AgentUpdated:
    """The active agent is now `agent`."""

    agent: str


# Control


@attrs.frozen
class GuardrailTriggered:
    """A guardrail of `kind` tripped; `info` is what it reported."""

    kind: str
    info: JsonValue = None


@attrs.frozen
class ApprovalRequested:
    """A tool call waits for a human's approval; `args` is its argument JSON text."""

    call_id: str
    tool: str
    args: str


@attrs.frozen
class PermissionDenied:
    """A tool call was refused by the permission decision (`call_id` and the deciding `rule` where known)."""

    tool: str
    reason: str
    call_id: str | None = None
    rule: str | None = None


@attrs.frozen
class PermissionGranted:
    """A tool call was allowed to run: `reason` says by what (a rule, the mode, the policy, an approval).

    `approved` is true when a human (the approval handler) said yes; `arguments` holds the argument
    JSON the call ran with when the policy, the approver or a hook changed the call, and whenever a human
    approved it (a waiting call may be an earlier approval's replacement); `None`: the model's ran.
    """

    call_id: str
    tool: str
    reason: str
    rule: str | None = None
    approved: bool = False
    arguments: str | None = None


@attrs.frozen
class RepairStarted:
    """Structured output failed validation; repair turn `attempt` (always 1) begins."""

    attempt: int


@attrs.frozen
class StructuredOutputFailed:
    """The repair turn's output failed validation too."""

    schema_errors: tuple[str, ...]
    final_text: str


@attrs.frozen
class ConversationCompacted:
    """The conversation the model sees passed its budget and was compacted.

    `summary` now stands in place of `replaced` items; the estimated tokens of the view went from
    `tokens_before` to `tokens_after`. The stored conversation keeps every item.
    """

    summary: str
    replaced: int
    tokens_before: int
    tokens_after: int


@attrs.frozen
class CompactionSkipped:
    """A warning: the compaction before this model call was skipped (`reason`); the run goes on uncompacted."""

    reason: str


# Terminal


@attrs.frozen
class RunCompleted:
    """The run succeeded; `usage` is its total, sub-runs of every kind included.

    `usage_by_agent` splits that total by the agent whose model made each call, sorted by agent
    name (the trio shell fills it; empty from `transition` alone). `usage_by_model` splits it further
    by the model that answered, sorted by agent then model (empty in runs recorded before it existed).
    """

    usage: Usage
    usage_by_agent: tuple[AgentUsage, ...] = ()
    usage_by_model: tuple[ModelShare, ...] = ()


@attrs.frozen
class RunFailed:
    """The run failed with `error`."""

    error: AgentError


@attrs.frozen
class RunPaused:
    """The run stopped to wait for a human: `pending` holds the approval request of every waiting call.

    Not a failure: a run recorded in a store continues with
    ``runner.resume(run_id, agent, ctx, approvals={call_id: Approve() | Reject(reason)})``.
    `usage` is what the run spent until it paused.
    """

    pending: tuple[ApprovalRequested, ...]
    usage: Usage = Usage()


AgentEvent: TypeAlias = (
    RunStarted
    | TurnStarted
    | TokenDelta
    | ReasoningDelta
    | ToolCallDelta
    | MessageOutput
    | ToolCallItem
    | ToolOutputItem
    | HandoffItem
    | AgentUpdated
    | GuardrailTriggered
    | ApprovalRequested
    | PermissionDenied
    | PermissionGranted
    | RepairStarted
    | StructuredOutputFailed
    | ConversationCompacted
    | CompactionSkipped
    | RunCompleted
    | RunFailed
    | RunPaused
)
"""Everything a run reports, in order."""

TerminalEvent: TypeAlias = RunCompleted | RunFailed | RunPaused
"""The three events that end a run (a paused run waits for approvals: see `RunPaused`)."""
