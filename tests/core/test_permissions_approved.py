"""`decide`'s automatic allows are not approvals (rule: `Allow.approved` is "a human said yes")."""

from __future__ import annotations

from helikon_fc.core import ToolCall
from helikon_fc.core.permissions import (
    Allow,
    PermissionConfig,
    PermissionMode,
    PolicyAllow,
    ToolEffect,
    ToolInfo,
    ToolRule,
    decide,
)

CALL = ToolCall("c1", "search", "{}")
SEARCH = ToolInfo("search", ToolEffect.READ_ONLY)


def test_an_allow_no_human_gave_is_not_marked_approved() -> None:
    """An allow rule, a mode, and the external policy allow on their own: none of them says a human approved."""
    decisions = [
        decide(PermissionConfig(allow=(ToolRule("search"),)), CALL, SEARCH),
        decide(PermissionConfig(mode=PermissionMode.BYPASS), CALL, SEARCH),
        decide(PermissionConfig(external_policy=True), CALL, SEARCH, policy_verdict=PolicyAllow()),
    ]
    for decision in decisions:
        assert type(decision) is Allow
        assert decision.approved is False
    assert Allow("by hand").approved is False
