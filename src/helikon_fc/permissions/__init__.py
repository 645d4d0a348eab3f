"""Permissions: may this tool call run? Decided as data, asked of a policy or a human when needed.

The decision is pure (`decide`, in `helikon_fc.core`): deny rules, the mode, guards, allow rules,
then a data policy (`PolicyRule`) or your async policy. `Permissions` carries the configuration,
the async policy and the approval handler onto a run; `resolve_permission` runs the whole
exchange for one call. Its answer is a `PermissionAllow` or a `PermissionDeny` (a human was asked
when the decision was a `PermissionAsk`, and answered `Approve` or `Reject`).

Rules by tool name are `ToolRule`; rules that read a call's arguments are `ArgumentRule`s. The
coding agent's rules (a ``Bash`` tool's commands, ``Read``/``Edit``/``Write`` paths) are the
optional `helikon_fc.permissions.coding`. Redaction (`RedactionConfig`, `known_secrets`) keeps
secrets out of what a tool returns.

The pure values (`PermissionConfig` and the rest) have their home in `helikon_fc.core`, which a
sandboxed runtime can import alone; they are re-exported here beside the shell half.
"""

from __future__ import annotations

from .._public import claim
from ..core.permissions import (
    ArgumentRule as ArgumentRule,
    ConsultPolicy as ConsultPolicy,
    Guard as Guard,
    GuardAction as GuardAction,
    PermissionAllow as PermissionAllow,
    PermissionAsk as PermissionAsk,
    PermissionConfig as PermissionConfig,
    PermissionDecision as PermissionDecision,
    PermissionDeny as PermissionDeny,
    PermissionMode as PermissionMode,
    PermissionRule as PermissionRule,
    PolicyAllow as PolicyAllow,
    PolicyAsk as PolicyAsk,
    PolicyDeny as PolicyDeny,
    PolicyReplace as PolicyReplace,
    PolicyRule as PolicyRule,
    PolicyVerdict as PolicyVerdict,
    ToolEffect as ToolEffect,
    ToolInfo as ToolInfo,
    ToolRule as ToolRule,
    decide as decide,
    decision_events as decision_events,
    screen as screen,
)
from ..core.redaction import (
    RedactionConfig as RedactionConfig,
    redact_json as redact_json,
    redact_output as redact_output,
    redact_text as redact_text,
    secrets_from_environment as secrets_from_environment,
)
from ..shell.control.permissions import (
    ApprovalHandler as ApprovalHandler,
    ApprovalRequest as ApprovalRequest,
    Approve as Approve,
    PermissionPolicy as PermissionPolicy,
    PermissionResolution as PermissionResolution,
    Permissions as Permissions,
    Reject as Reject,
    denial_text as denial_text,
    resolve_permission as resolve_permission,
)
from ..shell.control.redaction import known_secrets as known_secrets

__all__ = [
    "ApprovalHandler",
    "ApprovalRequest",
    "Approve",
    "ArgumentRule",
    "ConsultPolicy",
    "Guard",
    "GuardAction",
    "PermissionAllow",
    "PermissionAsk",
    "PermissionConfig",
    "PermissionDecision",
    "PermissionDeny",
    "PermissionMode",
    "PermissionPolicy",
    "PermissionResolution",
    "PermissionRule",
    "Permissions",
    "PolicyAllow",
    "PolicyAsk",
    "PolicyDeny",
    "PolicyReplace",
    "PolicyRule",
    "PolicyVerdict",
    "RedactionConfig",
    "Reject",
    "ToolEffect",
    "ToolInfo",
    "ToolRule",
    "decide",
    "decision_events",
    "denial_text",
    "known_secrets",
    "redact_json",
    "redact_output",
    "redact_text",
    "resolve_permission",
    "screen",
    "secrets_from_environment",
]

claim(__name__, globals(), __all__)
