"""The permission configuration as data: tool effects, modes, rules, guards and a data policy.

Every value here is frozen, so one `PermissionConfig` can be shared by a run, its handoff targets and
its `AgentAsTool` sub-runs, and written to JSON with the core's wire format.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

import attrs

__all__ = [
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


def _non_empty(kind: str) -> Callable[[object, attrs.Attribute[str], str], None]:
    def check(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
        if not isinstance(value, str) or not value:
            raise ValueError(f"{kind}: {attribute.name} must be a non-empty string, got {value!r}")

    return check


def _a_string(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{type(instance).__name__}: {attribute.name} must be a string, got {type(value).__name__}")


@attrs.frozen
class ToolRule:
    """Matches every call of the tool named `name` (exactly)."""

    name: str = attrs.field(validator=_non_empty("ToolRule"))

    def __str__(self) -> str:
        return f"tool({self.name})"


@attrs.frozen
class BashRule:
    """Matches a call of the ``Bash`` tool by the programs of its ``command``.

    As a deny rule (or guard) it matches when ANY sub-command runs `program`, by its name or its
    path's last component (``/bin/rm`` is ``rm``); as an allow rule only when there is at least one
    sub-command and EVERY one runs exactly `program`. See `parse_command` for how a command line is
    taken apart.
    """

    program: str = attrs.field(validator=_non_empty("BashRule"))

    def __str__(self) -> str:
        return f"bash({self.program})"


@attrs.frozen
class ReadRule:
    """Matches a call of the ``Read`` tool whose ``path`` fits the glob `pattern` (see `glob_matches`)."""

    pattern: str = attrs.field(validator=_a_string)

    def __str__(self) -> str:
        return f"read({self.pattern})"


@attrs.frozen
class EditRule:
    """Matches a call of the ``Edit`` or ``Write`` tool whose ``path`` fits the glob `pattern`."""

    pattern: str = attrs.field(validator=_a_string)

    def __str__(self) -> str:
        return f"edit({self.pattern})"


PermissionRule: TypeAlias = ToolRule | BashRule | ReadRule | EditRule
"""A matcher over tool calls, used by deny rules, allow rules, guards and the data policy."""

_RULE_TYPES = (ToolRule, BashRule, ReadRule, EditRule)


class GuardAction(enum.Enum):
    """What a guard does with a call it matches."""

    DENY = "deny"
    """Refuse the call."""
    ASK = "ask"
    """Ask the approval handler (or a human); refused when nobody can answer."""


@attrs.frozen
class Guard:
    """A user guard: a call matching `when` is refused or needs approval, whatever the mode.

    Attributes:
        name: Names the guard in decisions and approvals (an approval clears one guard by name).
        when: The calls it applies to (any sub-command, as for deny rules).
        action: Deny outright, or ask.
        prompt: What the approver reads; defaults to the rule.
    """

    name: str = attrs.field(validator=_non_empty("Guard"))
    when: PermissionRule = attrs.field()
    action: GuardAction = GuardAction.ASK
    prompt: str = ""

    @when.validator
    def _check_when(self, attribute: attrs.Attribute[PermissionRule], value: PermissionRule) -> None:
        if not isinstance(value, _RULE_TYPES):
            raise TypeError(f"Guard: when must be a permission rule (ToolRule, BashRule, ...), got {value!r}")


# The data policy.


@attrs.frozen
class PolicyAllow:
    """The policy allows the call."""


@attrs.frozen
class PolicyDeny:
    """The policy refuses the call, for `reason`."""

    reason: str


@attrs.frozen
class PolicyAsk:
    """The policy wants a human (the approval handler) to decide; `prompt` is what they read."""

    prompt: str


@attrs.frozen
class PolicyReplace:
    """The policy allows the call with `arguments` (JSON text) in place of the model's."""

    arguments: str


PolicyVerdict: TypeAlias = PolicyAllow | PolicyDeny | PolicyAsk | PolicyReplace
"""What a policy (data or async) answers for one call."""


@attrs.frozen
class PolicyRule:
    """One line of a data policy: a call matching `when` gets `verdict` (first matching line wins)."""

    when: PermissionRule
    verdict: PolicyVerdict


@attrs.frozen
class ToolInfo:
    """What the decision needs to know about the tool a call names.

    Attributes:
        name: The tool's name (the call's name for an unknown tool).
        effect: Its declared effect; an unknown tool counts as `SIDE_EFFECT`.
        known: Whether the agent has a tool of that name at all.
    """

    name: str
    effect: ToolEffect = ToolEffect.SIDE_EFFECT
    known: bool = True


def _checked(value: Iterable[object], kinds: tuple[type, ...], what: str) -> tuple[Any, ...]:
    """`value` as a tuple, each element one of `kinds`; a clear error naming `what` otherwise."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"PermissionConfig: {what} must be a sequence, got {type(value).__name__}")
    items = tuple(value)
    for item in items:
        if not isinstance(item, kinds):
            allowed = ", ".join(kind.__name__ for kind in kinds)
            raise TypeError(f"PermissionConfig: {what} holds {item!r}; allowed: {allowed}")
    return items


def _deny_rules(value: Iterable[PermissionRule]) -> tuple[PermissionRule, ...]:
    return _checked(value, _RULE_TYPES, "deny")


def _allow_rules(value: Iterable[PermissionRule]) -> tuple[PermissionRule, ...]:
    return _checked(value, _RULE_TYPES, "allow")


def _guards(value: Iterable[Guard]) -> tuple[Guard, ...]:
    return _checked(value, (Guard,), "guards")


def _policy(value: Iterable[PolicyRule]) -> tuple[PolicyRule, ...]:
    return _checked(value, (PolicyRule,), "policy")


def _is_mode(instance: object, attribute: attrs.Attribute[PermissionMode], value: object) -> None:
    if not isinstance(value, PermissionMode):
        allowed = ", ".join(mode.name for mode in PermissionMode)
        raise TypeError(f"PermissionConfig: mode must be a PermissionMode ({allowed}), got {value!r}")


@attrs.frozen(kw_only=True)
class PermissionConfig:
    """Everything the permission decision reads, as one frozen value (see `decide` for the order).

    It crosses handoffs and `AgentAsTool` sub-runs unchanged, so a `PLAN` mode or a deny rule
    applies to every agent of a run.

    Attributes:
        mode: The permission mode.
        deny: Rules that refuse a call whatever else says (checked first).
        allow: Rules that allow a call in any mode but `PLAN` (where only read-only tools may run).
        guards: User guards, checked after the built-in ones.
        builtin_guards: Whether the built-in destructive-command guards apply (see `builtin_guard_hits`).
        policy: The data policy: the first line whose rule matches gives the verdict.
        external_policy: When no data-policy line matches, the shell's async policy decides
            (`decide` answers `ConsultPolicy`); otherwise the call is allowed.
    """

    mode: PermissionMode = attrs.field(default=PermissionMode.DEFAULT, validator=_is_mode)
    deny: tuple[PermissionRule, ...] = attrs.field(default=(), converter=_deny_rules)
    allow: tuple[PermissionRule, ...] = attrs.field(default=(), converter=_allow_rules)
    guards: tuple[Guard, ...] = attrs.field(default=(), converter=_guards)
    builtin_guards: bool = True
    policy: tuple[PolicyRule, ...] = attrs.field(default=(), converter=_policy)
    external_policy: bool = False

    def with_mode(self, mode: PermissionMode) -> PermissionConfig:
        """A copy in `mode`, where the current mode lets it change (as the original does).

        From `DONT_ASK` nothing changes; from `BYPASS` only `DONT_ASK` is accepted; from any
        other mode every change is accepted (loosening `PLAN` to `DEFAULT` included). A refused
        change returns this config unchanged.
        """
        if self.mode is PermissionMode.DONT_ASK:
            return self
        if self.mode is PermissionMode.BYPASS and mode is not PermissionMode.DONT_ASK:
            return self
        return attrs.evolve(self, mode=mode)
