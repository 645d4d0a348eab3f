"""`Permissions`, `Approve`, `Reject` and ``ctx.with_permissions`` refuse what they cannot use when built, naming the
argument; an approver's replacement is checked against the tool's schema like a policy's."""

from __future__ import annotations

import functools
import json

import pytest
import trio
import trio.testing

from helikon_fc import RunContext
from helikon_fc.core import (
    Allow,
    ApprovalRequested,
    Deny,
    JsonObject,
    PermissionConfig,
    PermissionDenied,
    PermissionMode,
    PolicyAllow,
    PolicyVerdict,
    RedactionConfig,
    ToolCall,
    ToolInfo,
)
from helikon_fc.shell.control.permissions import (
    ApprovalAnswer,
    ApprovalRequest,
    Approve,
    Permissions,
    Reject,
    is_async_callable,
    resolve_permission,
)

SCHEMA: JsonObject = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}
BASH = ToolInfo("Bash", parameters=SCHEMA)


async def approve_all(request: ApprovalRequest) -> ApprovalAnswer:
    await trio.lowlevel.checkpoint()
    return Approve()


def sync_handler(request: ApprovalRequest) -> ApprovalAnswer:
    return Approve()


class AsyncPolicy:
    async def __call__(self, call: ToolCall, tool: ToolInfo) -> PolicyVerdict:
        await trio.lowlevel.checkpoint()
        return PolicyAllow()


def test_the_config_must_be_a_permission_config() -> None:
    """``Permissions(config=PermissionMode.PLAN)`` failed later with an AttributeError."""
    with pytest.raises(TypeError) as raised:
        Permissions(config=PermissionMode.PLAN)  # type: ignore[arg-type]
    assert str(raised.value) == (
        "Permissions: config must be a PermissionConfig, got <PermissionMode.PLAN: 'plan'> (PermissionMode); "
        "for a mode alone use PermissionConfig(mode=PermissionMode.PLAN)"
    )
    with pytest.raises(TypeError) as text:
        Permissions(config="plan")  # type: ignore[arg-type]
    assert str(text.value).endswith("got 'plan' (str); for a mode alone use PermissionConfig(mode='plan')")
    with pytest.raises(TypeError) as other:
        Permissions(config="strict")  # type: ignore[arg-type]
    assert str(other.value) == "Permissions: config must be a PermissionConfig, got 'strict' (str)"


def test_a_sync_approval_handler_is_refused() -> None:
    """A sync handler was accepted and every question later refused with "approval handler raised TypeError"."""
    with pytest.raises(TypeError) as raised:
        Permissions(approval_handler=sync_handler)  # type: ignore[arg-type]
    assert str(raised.value).startswith("Permissions: approval_handler must be an approval handler (an async function)")
    assert str(raised.value).endswith("(function); make it an async function (async def)")


def test_a_policy_that_is_not_a_function_is_refused() -> None:
    """``Permissions(policy="allow-all")`` was accepted and refused every call at run time."""
    with pytest.raises(TypeError) as raised:
        Permissions(policy="allow-all")  # type: ignore[arg-type]
    assert (
        str(raised.value) == "Permissions: policy must be a policy (an async function) or None, got 'allow-all' (str)"
    )
    with pytest.raises(TypeError) as a_class:
        Permissions(policy=AsyncPolicy)  # type: ignore[arg-type]
    assert str(a_class.value).endswith("; pass an instance: AsyncPolicy(...)")


def test_async_functions_objects_and_partials_are_accepted() -> None:
    permissions = Permissions(policy=AsyncPolicy(), approval_handler=functools.partial(approve_all))
    assert permissions.approval_handler is not None and permissions.policy is not None
    assert Permissions(approval_handler=approve_all).approval_handler is approve_all
    assert not is_async_callable(AsyncPolicy) and not is_async_callable(None) and not is_async_callable(sync_handler)


def test_the_redaction_must_be_a_redaction_config() -> None:
    with pytest.raises(TypeError, match=r"^Permissions: redaction must be a RedactionConfig, got False \(bool\)$"):
        Permissions(redaction=False)  # type: ignore[arg-type]
    assert Permissions(redaction=RedactionConfig(enabled=False)).redaction.enabled is False


def test_with_permissions_takes_permissions_only() -> None:
    """``ctx.with_permissions(PermissionConfig(...))`` failed later with an AttributeError."""
    ctx = RunContext.ephemeral(None)
    with pytest.raises(TypeError) as raised:
        ctx.with_permissions(PermissionConfig())  # type: ignore[arg-type]
    assert str(raised.value).startswith("RunContext: permissions must be a Permissions or None, got PermissionConfig(")
    assert str(raised.value).endswith("; wrap it: Permissions(config=...)")
    with pytest.raises(TypeError) as mode:
        ctx.with_permissions(PermissionMode.PLAN)  # type: ignore[arg-type]
    assert str(mode.value).endswith("; wrap it: Permissions(config=...)")
    with pytest.raises(TypeError) as text:
        ctx.with_permissions("plan")  # type: ignore[arg-type]
    assert str(text.value) == "RunContext: permissions must be a Permissions or None, got 'plan' (str)"
    assert ctx.with_permissions(Permissions()).with_permissions(None).permissions is None


def test_an_approval_replacement_must_be_a_json_object() -> None:
    with pytest.raises(ValueError) as raised:
        Approve("")
    assert str(raised.value) == (
        "Approve: arguments must be the JSON text of an object, got '' (str); "
        "not valid JSON (Expecting value: line 1 column 1 (char 0))"
    )
    with pytest.raises(TypeError, match=r"^Approve: arguments must be the JSON text of an object, got 3 \(int\)$"):
        Approve(3)  # type: ignore[arg-type]
    assert Approve().arguments is None and Approve("{}").arguments == "{}"
    with pytest.raises(TypeError, match=r"^Reject: reason must be a string, got None \(NoneType\)$"):
        Reject(None)  # type: ignore[arg-type]


def bash(command: str) -> ToolCall:
    return ToolCall("c1", "Bash", json.dumps({"command": command}))


async def test_an_approver_replacement_off_the_schema_refuses_the_call(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The approver's replacement is checked as a policy's: off the tool's schema, the call is refused, with why."""

    async def rewrite(request: ApprovalRequest) -> ApprovalAnswer:
        await trio.lowlevel.checkpoint()
        return Approve(json.dumps({"cmd": "ls"}))

    resolution = await resolve_permission(Permissions(approval_handler=rewrite), bash("rm -rf /"), BASH)
    assert resolution.decision == Deny(
        "the approver replaced the arguments with ones invalid for tool 'Bash': $.command: missing required field"
    )
    assert [type(event) for event in resolution.events] == [ApprovalRequested, PermissionDenied]
    assert resolution.call == bash("rm -rf /")


async def test_an_approver_replacement_that_fits_is_recorded_as_what_runs(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async def rewrite(request: ApprovalRequest) -> ApprovalAnswer:
        await trio.lowlevel.checkpoint()
        return Approve(json.dumps({"command": "ls"}))

    resolution = await resolve_permission(Permissions(approval_handler=rewrite), bash("rm -rf /"), BASH)
    assert resolution.decision == Allow("no policy: allowed", approved=True, arguments=json.dumps({"command": "ls"}))
    assert resolution.call == bash("ls")


async def test_a_held_replacement_approved_records_the_arguments_it_runs_with() -> None:
    """A held call waits as an approver's replacement; its plain yes grants the replacement, and the grant says so."""
    replacement = bash("echo bye > /etc/issue")
    resolution = await resolve_permission(Permissions(), replacement, BASH, hold=True, answer=Approve())
    assert resolution.decision == Allow("no policy: allowed", approved=True, arguments=replacement.arguments)
    assert resolution.events[-1].arguments == replacement.arguments  # type: ignore[union-attr]
    unasked = await resolve_permission(Permissions(), bash("ls"), BASH)
    assert unasked.decision == Allow("no policy: allowed")


async def test_a_grant_records_arguments_a_hook_put_in_place_of_the_model_s() -> None:
    """`given` is the model's call before a `PreToolUse` hook replaced it: the grant records what runs."""
    hooked = await resolve_permission(Permissions(), bash("ls -la"), BASH, given=bash("ls"))
    assert hooked.decision == Allow("no policy: allowed", arguments=bash("ls -la").arguments)
    assert hooked.events[-1].arguments == bash("ls -la").arguments  # type: ignore[union-attr]
    untouched = await resolve_permission(Permissions(), bash("ls"), BASH, given=bash("ls"))
    assert untouched.decision == Allow("no policy: allowed")
