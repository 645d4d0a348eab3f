"""Laws of the permission API's spellings: an enum value written as its value string (``action="deny"``,
``mode="plan"``) configures exactly what its member does, so no spelling of a deny lets a call run."""

from __future__ import annotations

import trio
from hypothesis import given
from properties.permission_strategies import TOOLS, spelled_configs
from properties.test_permission_runs import _Spy, rounds

from helikon_fc import LlmAgent, RunContext
from helikon_fc.core import (
    ApprovalRequested,
    Deny,
    PermissionConfig,
    PermissionDenied,
    PermissionGranted,
    ToolCall,
    ToolEffect,
    ToolInfo,
    decide,
)
from helikon_fc.shell.control.permissions import ApprovalAnswer, ApprovalRequest, Approve, Permissions
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate


async def _approve_all(request: ApprovalRequest) -> ApprovalAnswer:
    await trio.lowlevel.checkpoint()
    return Approve()


def _run(
    config: PermissionConfig, calls: tuple[ToolCall, ...], effects: dict[str, ToolEffect]
) -> tuple[list[PermissionGranted | PermissionDenied | ApprovalRequested], list[tuple[str, str]]]:
    """One round of `calls` under `config`, with an approver that says yes to everything."""
    made: list[tuple[str, str]] = []
    tools = [_Spy(name, effects[name], made) for name in TOOLS]
    turn = call_tools(*(call(c.name).with_raw_arguments(c.arguments).with_id(c.call_id) for c in calls))
    agent = LlmAgent(name="fuzzed", model=ScriptedModel([turn, reply("done")]), tools=tools)
    permissions = Permissions(config=config, approval_handler=_approve_all)
    events = simulate(agent, "go", RunContext.ephemeral(None).with_permissions(permissions)).events
    decisions = [e for e in events if isinstance(e, PermissionGranted | PermissionDenied | ApprovalRequested)]
    return decisions, made


@given(spelled_configs(), rounds())
def test_no_spelling_of_a_deny_lets_a_denied_call_run(
    configs: tuple[PermissionConfig, PermissionConfig], round_: tuple[tuple[ToolCall, ...], dict[str, ToolEffect]]
) -> None:
    """A configuration spelled with value strings decides and runs exactly as the one spelled with members, and a
    call its pure decision denies never runs, even with an approver that approves everything."""
    members, spelled = configs
    calls, effects = round_
    assert spelled == members
    decisions, made = _run(spelled, calls, effects)
    reference, reference_made = _run(members, calls, effects)
    assert decisions == reference and sorted(made) == sorted(reference_made)
    ran = {call_id for call_id, _ in made}
    for c in calls:
        if isinstance(decide(members, c, ToolInfo(c.name, effects[c.name])), Deny):
            assert c.call_id not in ran, c
