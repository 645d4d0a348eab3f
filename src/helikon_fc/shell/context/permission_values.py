"""The permission values a run carries: the `Permissions` bundle (config, async policy, approval
handler, redaction), what a human is asked (`ApprovalRequest`) and answers (`Approve`, `Reject`),
and the decisions a resumed run was given (`Approvals`).

They are data a `RunContext` holds, so they sit beside it, below the code that resolves a call's
permission with them (`helikon_fc.shell.control.permissions`, which re-exports them; users import them
from `helikon_fc.permissions`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeAlias

import attrs

from ...core import PermissionConfig, PermissionMode, PolicyVerdict, RedactionConfig, ToolCall, ToolInfo
from ...core.permissions.checks import require_arguments
from .. import _checks


class PermissionPolicy(Protocol):
    """A policy that needs IO, consulted when no rule, guard, mode or data-policy line settled the call."""

    async def __call__(self, call: ToolCall, tool: ToolInfo) -> PolicyVerdict: ...


@attrs.frozen
class ApprovalRequest:
    """What a human is asked about one call.

    Attributes:
        call: The call, with its argument JSON.
        tool: The tool it names.
        reason: Why approval is needed.
        prompt: What the guard or the policy wants the approver to read.
        guard: The guard that asked, or `None` when the policy asked.
    """

    call: ToolCall
    tool: ToolInfo
    reason: str
    prompt: str
    guard: str | None = None


def _approve_arguments(instance: object, attribute: attrs.Attribute[str | None], value: object) -> None:
    if value is not None:
        require_arguments("Approve", "arguments", value)


@attrs.frozen
class Approve:
    """Yes; `arguments` (the JSON text of an object) replaces the call's arguments, which are then checked again.

    Replaced arguments must fit the tool's schema: a call whose replacement does not is refused, with the reason.
    """

    arguments: str | None = attrs.field(default=None, validator=_approve_arguments)


@attrs.frozen
class Reject:
    """No, for `reason` (the model reads it)."""

    reason: str = attrs.field(
        default="rejected by the approver", validator=_checks.field(_checks.instance_of(str, "a string"))
    )


ApprovalAnswer: TypeAlias = Approve | Reject
"""What an approval handler answers. It cannot ask again."""


class ApprovalHandler(Protocol):
    """Decides an `ApprovalRequest` in-process (a terminal prompt, a chat button, a test)."""

    async def __call__(self, request: ApprovalRequest) -> ApprovalAnswer: ...


def _require_config(owner: str, argument: str, value: object) -> None:
    hint = ""
    if isinstance(value, PermissionMode):
        hint = f"for a mode alone use PermissionConfig(mode=PermissionMode.{value.name})"
    elif isinstance(value, str) and value in {mode.value for mode in PermissionMode}:
        hint = f"for a mode alone use PermissionConfig(mode={value!r})"
    if not isinstance(value, PermissionConfig):
        raise TypeError(_checks.message(owner, argument, value, "a PermissionConfig", hint))


def is_async_callable(value: object) -> bool:
    """Whether calling `value` gives a coroutine: an ``async def`` function, or an object with an async ``__call__``."""
    return inspect.iscoroutinefunction(value) or (
        callable(value) and not isinstance(value, type) and inspect.iscoroutinefunction(type(value).__call__)
    )


def _async_callable(what: str) -> Callable[[str, str, Any], None]:
    """A check that a value is `None` or an async callable (`what` names it in the message)."""

    def check(owner: str, argument: str, value: object) -> None:
        if value is None or is_async_callable(value):
            return
        hint = ""
        if isinstance(value, type):
            hint = f"pass an instance: {value.__name__}(...)"
        elif callable(value):
            hint = "make it an async function (async def)"
        raise TypeError(_checks.message(owner, argument, value, f"{what} (an async function) or None", hint))

    return check


def require_permissions(owner: str, argument: str, value: object) -> None:
    """Raise `TypeError` unless `value` is a `Permissions` or `None`; a bare `PermissionConfig` gets a hint."""
    if value is None or isinstance(value, Permissions):
        return
    hint = "wrap it: Permissions(config=...)" if isinstance(value, PermissionConfig | PermissionMode) else ""
    raise TypeError(_checks.message(owner, argument, value, "a Permissions or None", hint))


@attrs.frozen(kw_only=True)
class Permissions:
    """The permission configuration of a run, with the async policy and the approval handler.

    Attributes:
        config: The rules, mode, guards and data policy.
        policy: Consulted when the config leaves the call to it; `None` for none (the call is then allowed).
        approval_handler: Answers questions in-process: a run waits for it. `None`: a run that
            meets a question pauses (`RunPaused`) until it is resumed with approvals (and
            `resolve_permission` on its own refuses the question, the original's behaviour).
        redaction: How tool output is redacted before the model, the events or a store see it
            (secret-named assignments, the environment's secret values and `RedactionConfig.secrets`);
            ``RedactionConfig(enabled=False)`` turns it off.
    """

    config: PermissionConfig = attrs.field(default=PermissionConfig(), validator=_checks.field(_require_config))
    policy: PermissionPolicy | None = attrs.field(default=None, validator=_checks.field(_async_callable("a policy")))
    approval_handler: ApprovalHandler | None = attrs.field(
        default=None, validator=_checks.field(_async_callable("an approval handler"))
    )
    redaction: RedactionConfig = attrs.field(
        default=RedactionConfig(), validator=_checks.field(_checks.instance_of(RedactionConfig, "a RedactionConfig"))
    )

    @property
    def decision_config(self) -> PermissionConfig:
        """The config `decide` reads: an installed `policy` turns `external_policy` on."""
        if self.policy is not None and not self.config.external_policy:
            return attrs.evolve(self.config, external_policy=True)
        return self.config


class Approvals:
    """The decisions a resumed run was given, by call id; each is taken once, by the run whose call waits.

    Shared by a run and every run below it (handoff targets, agent-as-tool sub-runs, workflow
    children), so a decision reaches the sub-run that asked. Taking a decision removes it: a call
    that raises a second question (another guard, or replaced arguments that a guard stops) waits
    again instead of being answered by the first decision.
    """

    __slots__ = ("_decisions",)

    def __init__(self, decisions: Mapping[str, ApprovalAnswer]) -> None:
        checked: dict[str, ApprovalAnswer] = {}
        for call_id, decision in decisions.items():
            if not isinstance(call_id, str) or not isinstance(decision, Approve | Reject):
                raise TypeError(
                    "approvals must map call ids (str) to Approve() or Reject(reason), "
                    f"got {call_id!r}: {decision!r} ({type(decision).__name__})"
                )
            checked[call_id] = decision
        self._decisions = checked

    def take(self, call_id: str) -> ApprovalAnswer | None:
        """The decision for `call_id` (and forget it), or `None`."""
        return self._decisions.pop(call_id, None)

    def __len__(self) -> int:
        return len(self._decisions)

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._decisions

    def __repr__(self) -> str:
        return f"Approvals({sorted(self._decisions)!r})"
