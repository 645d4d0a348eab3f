"""The permission configuration as data: tool effects, modes, rules, guards and a data policy.

Every value here is frozen, so one `PermissionConfig` can be shared by a run, its handoff targets and
its `AgentAsTool` sub-runs, and written to JSON with the core's wire format.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeAlias

import attrs

from ..json_value import JsonObject
from .checks import member, message, non_empty, require, require_arguments, text
from .coding.rules import BashRule, EditRule, ReadRule

__all__ = [
    "ArgumentRule",
    "BashRule",
    "EditRule",
    "Guard",
    "GuardAction",
    "PermissionConfig",
    "PermissionMode",
    "PermissionRule",
    "PolicyAllow",
    "PolicyAsk",
    "PolicyDeny",
    "PolicyReplace",
    "PolicyRule",
    "PolicyVerdict",
    "ReadRule",
    "ToolEffect",
    "ToolInfo",
    "ToolRule",
]


class ToolEffect(enum.Enum):
    """What running a tool may change: the permission modes decide by it.

    A tool that does not declare its effect is taken to have side effects (`SIDE_EFFECT`).
    """

    READ_ONLY = "read_only"
    """Only reads (a search, a file read): the one effect `Plan` mode lets run."""
    WRITE = "write"
    """Edits files or records: `AcceptEdits` mode allows these without asking."""
    SIDE_EFFECT = "side_effect"
    """Anything else (a shell command, a network call, a sub-agent): the default."""


def _tool_effect(value: ToolEffect | str) -> ToolEffect:
    return member(ToolEffect, value, "ToolInfo", "effect")


class PermissionMode(enum.Enum):
    """How permissive a run is, after deny rules, guards and allow rules have had their say."""

    DEFAULT = "default"
    """Defer to the policy; with no policy, allow."""
    ACCEPT_EDITS = "accept_edits"
    """Allow `WRITE` tools; the others defer to the policy."""
    PLAN = "plan"
    """Deny every tool that is not `READ_ONLY` (allow rules included); read-only tools defer to the policy."""
    BYPASS = "bypass"
    """Allow whatever survives the deny rules and the guards."""
    DONT_ASK = "dont_ask"
    """Deny whatever no allow rule allowed; the policy is never consulted."""


@attrs.frozen
class ToolRule:
    """Matches every call of the tool named `name` (exactly)."""

    name: str = attrs.field(validator=non_empty("ToolRule"))

    def __str__(self) -> str:
        return f"tool({self.name})"


class ArgumentRule(Protocol):
    """A rule that reads a call's arguments: the plug through which a family of tools brings its own rules.

    `decide` matches a `ToolRule` by the tool's name and asks every other rule `matches`. The coding
    agent's rules (`BashRule`, `ReadRule`, `EditRule`, in `permissions.coding`) are argument rules;
    a new family is one more frozen class with `matches`, a member of `PermissionRule` and a wire tag.
    """

    def matches(self, tool: str, arguments: JsonObject, *, every: bool) -> bool:
        """Whether a call of `tool` with `arguments` matches: `every` is the allow reading, else the deny reading."""
        ...  # pragma: no cover


PermissionRule: TypeAlias = ToolRule | BashRule | ReadRule | EditRule
"""A matcher over tool calls, used by deny rules, allow rules, guards and the data policy."""

_RULE_TYPES = (ToolRule, BashRule, ReadRule, EditRule)
_A_RULE = "a permission rule (ToolRule, BashRule, ReadRule or EditRule)"


def _require_rule(owner: str, argument: str, value: object) -> None:
    hint = f"wrap the name in a rule: ToolRule({value!r}) or BashRule({value!r})" if isinstance(value, str) else ""
    require(owner, argument, value, _RULE_TYPES, _A_RULE, hint)


def _flag(instance: object, attribute: attrs.Attribute[bool], value: object) -> None:
    require(type(instance).__name__, attribute.name, value, bool, "True or False")


class GuardAction(enum.Enum):
    """What a guard does with a call it matches."""

    DENY = "deny"
    """Refuse the call."""
    ASK = "ask"
    """Ask the approval handler (or a human); refused when nobody can answer."""


def _guard_action(value: GuardAction | str) -> GuardAction:
    return member(GuardAction, value, "Guard", "action")


@attrs.frozen
class Guard:
    """A user guard: a call matching `when` is refused or needs approval, whatever the mode.

    Attributes:
        name: Names the guard in decisions and approvals (an approval clears one guard by name).
        when: The calls it applies to (any sub-command, as for deny rules).
        action: Deny outright, or ask.
        prompt: What the approver reads; defaults to the rule.
    """

    name: str = attrs.field(validator=non_empty("Guard"))
    when: PermissionRule = attrs.field()
    action: GuardAction = attrs.field(default=GuardAction.ASK, converter=_guard_action)
    prompt: str = attrs.field(default="", validator=text("Guard"))

    @when.validator
    def _check_when(self, attribute: attrs.Attribute[PermissionRule], value: PermissionRule) -> None:
        _require_rule("Guard", "when", value)


# The data policy.


@attrs.frozen
class PolicyAllow:
    """The policy allows the call."""


@attrs.frozen
class PolicyDeny:
    """The policy refuses the call, for `reason`."""

    reason: str = attrs.field(validator=text("PolicyDeny"))


@attrs.frozen
class PolicyAsk:
    """The policy wants a human (the approval handler) to decide; `prompt` is what they read."""

    prompt: str = attrs.field(validator=text("PolicyAsk"))


@attrs.frozen
class PolicyReplace:
    """The policy allows the call with `arguments` (the JSON text of an object) in place of the model's.

    The replacement must also fit the tool's schema (`ToolInfo.parameters`): a call whose
    replacement does not is refused, with the reason.
    """

    arguments: str = attrs.field()

    @arguments.validator
    def _check_arguments(self, attribute: attrs.Attribute[str], value: object) -> None:
        require_arguments("PolicyReplace", "arguments", value)


PolicyVerdict: TypeAlias = PolicyAllow | PolicyDeny | PolicyAsk | PolicyReplace
"""What a policy (data or async) answers for one call."""


_VERDICT_TYPES = (PolicyAllow, PolicyDeny, PolicyAsk, PolicyReplace)
_VERDICT_HINTS = {"allow": "PolicyAllow()", "deny": "PolicyDeny(reason)", "ask": "PolicyAsk(prompt)"}


@attrs.frozen
class PolicyRule:
    """One line of a data policy: a call matching `when` gets `verdict` (first matching line wins)."""

    when: PermissionRule = attrs.field()
    verdict: PolicyVerdict = attrs.field()

    @when.validator
    def _check_when(self, attribute: attrs.Attribute[PermissionRule], value: object) -> None:
        _require_rule("PolicyRule", "when", value)

    @verdict.validator
    def _check_verdict(self, attribute: attrs.Attribute[PolicyVerdict], value: object) -> None:
        hint = f"use {_VERDICT_HINTS[value]}" if isinstance(value, str) and value in _VERDICT_HINTS else ""
        allowed = "a policy verdict (PolicyAllow, PolicyDeny, PolicyAsk or PolicyReplace)"
        require("PolicyRule", "verdict", value, _VERDICT_TYPES, allowed, hint)


@attrs.frozen
class ToolInfo:
    """What the decision needs to know about the tool a call names.

    Attributes:
        name: The tool's name (the call's name for an unknown tool).
        effect: Its declared effect (the member or its value string); an unknown tool counts as `SIDE_EFFECT`.
        known: Whether the agent has a tool of that name at all.
        parameters: The JSON Schema of its arguments, when known: arguments a policy or an approver
            puts in place of the model's must fit it (`None`: only a JSON object is required).
    """

    name: str = attrs.field(validator=text("ToolInfo"))
    effect: ToolEffect = attrs.field(default=ToolEffect.SIDE_EFFECT, converter=_tool_effect)
    known: bool = attrs.field(default=True, validator=_flag)
    parameters: JsonObject | None = attrs.field(default=None, eq=False, repr=False)


def _checked(
    value: Iterable[object], what: str, each: Callable[[str, str, object], None], kind: str
) -> tuple[Any, ...]:
    """`value` as a tuple, each element passing `each`; a clear error naming `what` (and the element) otherwise."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(message("PermissionConfig", what, value, f"a sequence of {kind}"))
    items = tuple(value)
    for index, item in enumerate(items):
        each("PermissionConfig", f"{what}[{index}]", item)
    return items


def _one_of(types: type, allowed: str) -> Callable[[str, str, object], None]:
    def check(owner: str, argument: str, value: object) -> None:
        require(owner, argument, value, types, allowed)

    return check


def _deny_rules(value: Iterable[PermissionRule]) -> tuple[PermissionRule, ...]:
    return _checked(value, "deny", _require_rule, "permission rules")


def _allow_rules(value: Iterable[PermissionRule]) -> tuple[PermissionRule, ...]:
    return _checked(value, "allow", _require_rule, "permission rules")


def _guards(value: Iterable[Guard]) -> tuple[Guard, ...]:
    return _checked(value, "guards", _one_of(Guard, "a Guard"), "Guards")


def _policy(value: Iterable[PolicyRule]) -> tuple[PolicyRule, ...]:
    return _checked(value, "policy", _one_of(PolicyRule, "a PolicyRule"), "PolicyRules")


def _mode(value: PermissionMode | str) -> PermissionMode:
    return member(PermissionMode, value, "PermissionConfig", "mode")


@attrs.frozen(kw_only=True)
class PermissionConfig:
    """Everything the permission decision reads, as one frozen value (see `decide` for the order).

    It crosses handoffs and `AgentAsTool` sub-runs unchanged, so a `PLAN` mode or a deny rule
    applies to every agent of a run.

    Attributes:
        mode: The permission mode (a member or its value string, ``"plan"``).
        deny: Rules that refuse a call whatever else says (checked first).
        allow: Rules that allow a call in any mode but `PLAN` (where only read-only tools may run).
        guards: User guards, checked after the built-in ones.
        builtin_guards: Whether the built-in destructive-command guards apply (see `builtin_guard_hits`).
        policy: The data policy: the first line whose rule matches gives the verdict.
        external_policy: When no data-policy line matches, the shell's async policy decides
            (`decide` answers `ConsultPolicy`); otherwise the call is allowed.
    """

    mode: PermissionMode = attrs.field(default=PermissionMode.DEFAULT, converter=_mode)
    deny: tuple[PermissionRule, ...] = attrs.field(default=(), converter=_deny_rules)
    allow: tuple[PermissionRule, ...] = attrs.field(default=(), converter=_allow_rules)
    guards: tuple[Guard, ...] = attrs.field(default=(), converter=_guards)
    builtin_guards: bool = attrs.field(default=True, validator=_flag)
    policy: tuple[PolicyRule, ...] = attrs.field(default=(), converter=_policy)
    external_policy: bool = attrs.field(default=False, validator=_flag)

    def with_mode(self, mode: PermissionMode | str) -> PermissionConfig:
        """A copy in `mode`, where the current mode lets it change (as the original does).

        From `DONT_ASK` nothing changes; from `BYPASS` only `DONT_ASK` is accepted; from any
        other mode every change is accepted (loosening `PLAN` to `DEFAULT` included). A refused
        change returns this config unchanged. `mode` is a member or its value string.
        """
        mode = member(PermissionMode, mode, "PermissionConfig.with_mode", "mode")
        if self.mode is PermissionMode.DONT_ASK:
            return self
        if self.mode is PermissionMode.BYPASS and mode is not PermissionMode.DONT_ASK:
            return self
        return attrs.evolve(self, mode=mode)
