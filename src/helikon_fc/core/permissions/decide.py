"""The permission decision: one pure function from (configuration, tool call, tool) to a decision.

The order (the original's pipeline, section 6 of the behaviour notes, with one change marked):

1. deny rules: the first that matches refuses the call (``denied by deny rule: TOOL``);
2. *(changed)* `PLAN` mode refuses every tool that is not read-only, before any guard asks a
   human and before any allow rule (the original let allow rules through in `PLAN`);
3. guards (built-in, then the user's): a `DENY` guard refuses; an `ASK` guard answers `Ask`
   unless the approver already cleared it (`approved_guards`), and the next guard is checked;
4. allow rules: the first that matches allows the call, in any mode;
5. the mode: `BYPASS` allows, `DONT_ASK` refuses, `ACCEPT_EDITS` allows `WRITE` tools,
   `DEFAULT` and the rest fall through;
6. the data policy (first matching line), then the external policy when the config has one
   (`ConsultPolicy` until the shell feeds its verdict back as `policy_verdict`), else allow.
   A policy that replaces the arguments has the new call screened by steps 1 and 3 again; a
   replacement that is not a JSON object fitting the tool's schema refuses the call.

The same inputs always give the same decision, so a logged decision can be replayed.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TypeAlias, assert_never

import attrs

from ..events import AgentEvent, ApprovalRequested, PermissionDenied, PermissionGranted
from ..items import ToolCall
from ..json_value import JsonObject
from ..schema import parse_arguments, validate
from .checks import json_object_problem
from .coding.rules import builtin_guard_hits
from .config import (
    GuardAction,
    PermissionConfig,
    PermissionMode,
    PermissionRule,
    PolicyAllow,
    PolicyAsk,
    PolicyDeny,
    PolicyReplace,
    PolicyVerdict,
    ToolEffect,
    ToolInfo,
    ToolRule,
)

__all__ = [
    "Allow",
    "Ask",
    "ConsultPolicy",
    "Deny",
    "PermissionAllow",
    "PermissionAsk",
    "PermissionDecision",
    "PermissionDeny",
    "decide",
    "decision_events",
    "refuse_unanswered",
    "replacement_problem",
    "screen",
]


@attrs.frozen
class PermissionAllow:
    """Run the call.

    Attributes:
        reason: What allowed it (``allowed by allow rule: bash(git)``, ``bypass mode``, ...).
        rule: The rule that matched, when one did.
        arguments: The argument JSON the call runs with when the policy or an approver replaced it (or,
            from `resolve_permission`, a human approved it); `None`: the model's own.
        approved: A human said yes.
    """

    reason: str
    rule: str | None = None
    arguments: str | None = None
    approved: bool = False


@attrs.frozen
class PermissionDeny:
    """Refuse the call; the model reads ``permission denied: <reason>``."""

    reason: str
    rule: str | None = None


@attrs.frozen
class PermissionAsk:
    """A human must decide (the approval handler, or a paused run's resumer).

    Attributes:
        reason: Why approval is needed.
        prompt: What the approver reads.
        guard: The guard that asked (an approval clears that guard only), or `None` when the
            policy asked (an approval then allows the call).
    """

    reason: str
    prompt: str
    guard: str | None = None


Allow = PermissionAllow
"""The former name of `PermissionAllow` (deprecated: a hook's answer is `HookAllow`)."""
Deny = PermissionDeny
"""The former name of `PermissionDeny` (deprecated: a hook's answer is `HookDeny`)."""
Ask = PermissionAsk
"""The former name of `PermissionAsk` (deprecated)."""


@attrs.frozen
class ConsultPolicy:
    """The external (async) policy decides: call `decide` again with its verdict as `policy_verdict`."""


PermissionDecision: TypeAlias = PermissionAllow | PermissionDeny | PermissionAsk | ConsultPolicy
"""What `decide` answers for one call."""


@attrs.frozen
class _View:
    """A call as the rules read it: the tool, and its arguments as a JSON object."""

    tool: ToolInfo
    arguments: JsonObject


def _view(call: ToolCall, tool: ToolInfo) -> _View:
    return _View(tool, _arguments(call.arguments))


def _arguments(text: str) -> JsonObject:
    try:
        return parse_arguments(text)
    except (ValueError, RecursionError):
        return {}


def _matches(rule: PermissionRule, view: _View, *, every: bool) -> bool:
    """Whether `rule` matches; `every` is the allow reading (all of what the call does), else the deny reading (any)."""
    if isinstance(rule, ToolRule):
        return view.tool.name == rule.name
    return rule.matches(view.tool.name, view.arguments, every=every)


def _guard_hits(config: PermissionConfig, view: _View) -> list[tuple[str, GuardAction, str]]:
    """The guards that apply, deny guards first: (name, action, prompt)."""
    hits: list[tuple[str, GuardAction, str]] = []
    if config.builtin_guards:
        found = builtin_guard_hits(view.tool.name, view.arguments)
        hits.extend((hit.name, GuardAction.ASK, hit.prompt) for hit in found)
    for guard in config.guards:
        if _matches(guard.when, view, every=False):
            hits.append((guard.name, guard.action, guard.prompt or str(guard.when)))
    return sorted(hits, key=lambda hit: hit[1] is not GuardAction.DENY)


def screen(
    config: PermissionConfig, call: ToolCall, tool: ToolInfo | None = None, *, approved_guards: Collection[str] = ()
) -> Deny | Ask | None:
    """Steps 1 to 3 alone: the deny rules, `PLAN`'s refusal and the guards; `None` when the call passes them."""
    return _screen(config, _view(call, _tool(call, tool)), approved_guards)


def _screen(config: PermissionConfig, view: _View, approved_guards: Collection[str]) -> Deny | Ask | None:
    for rule in config.deny:
        if _matches(rule, view, every=False):
            return Deny(f"denied by deny rule: {view.tool.name}", rule=str(rule))
    if config.mode is PermissionMode.PLAN and view.tool.effect is not ToolEffect.READ_ONLY:
        return Deny("plan mode allows read-only tools only")
    for name, action, prompt in _guard_hits(config, view):
        if action is GuardAction.DENY:
            return Deny(f"blocked by guard {name}: {prompt}", rule=f"guard:{name}")
        if name not in approved_guards:
            return Ask("destructive command requires approval", prompt, guard=name)
    return None


def _tool(call: ToolCall, tool: ToolInfo | None) -> ToolInfo:
    return tool if tool is not None else ToolInfo(call.name, ToolEffect.SIDE_EFFECT, known=False)


def decide(
    config: PermissionConfig,
    call: ToolCall,
    tool: ToolInfo | None = None,
    *,
    approved_guards: Collection[str] = (),
    policy_verdict: PolicyVerdict | None = None,
) -> PermissionDecision:
    """Decide whether `call` may run, by the order in this module's docstring.

    Args:
        config: The permission configuration.
        call: The model's call (its arguments are read as JSON; text that is not a JSON object
            reads as no arguments).
        tool: The tool the call names; `None` for an unknown tool (counted as `SIDE_EFFECT`).
        approved_guards: Guards an approver has already cleared for this call.
        policy_verdict: The external policy's verdict, once the shell has it.

    Returns:
        `Allow`, `Deny`, `Ask` (a human must decide) or `ConsultPolicy` (await the external policy).
    """
    view = _view(call, _tool(call, tool))
    screened = _screen(config, view, approved_guards)
    if screened is not None:
        return screened
    for rule in config.allow:
        if _matches(rule, view, every=True):
            return Allow(f"allowed by allow rule: {rule}", rule=str(rule))
    by_mode = _by_mode(config.mode, view.tool.effect)
    if by_mode is not None:
        return by_mode
    return _by_policy(config, call, view, approved_guards, policy_verdict)


def _by_mode(mode: PermissionMode, effect: ToolEffect) -> Allow | Deny | None:
    match mode:
        case PermissionMode.DEFAULT | PermissionMode.PLAN:
            return None
        case PermissionMode.ACCEPT_EDITS:
            return Allow("accept-edits mode allows write tools") if effect is ToolEffect.WRITE else None
        case PermissionMode.BYPASS:
            return Allow("bypass mode")
        case PermissionMode.DONT_ASK:
            return Deny("dont-ask mode: no allow rule matched")
        case _:
            assert_never(mode)


def _by_policy(
    config: PermissionConfig,
    call: ToolCall,
    view: _View,
    approved_guards: Collection[str],
    policy_verdict: PolicyVerdict | None,
) -> PermissionDecision:
    rule: str | None = None
    verdict: PolicyVerdict | None = None
    for line in config.policy:
        grants = isinstance(line.verdict, PolicyAllow | PolicyReplace)
        if _matches(line.when, view, every=grants):
            rule, verdict = str(line.when), line.verdict
            break
    if verdict is None:
        if not config.external_policy:
            return Allow("no policy: allowed")
        if policy_verdict is None:
            return ConsultPolicy()
        verdict = policy_verdict
    match verdict:
        case PolicyAllow():
            return Allow("allowed by policy", rule=rule)
        case PolicyDeny(reason=reason):
            return Deny(reason or "denied by policy", rule=rule)
        case PolicyAsk(prompt=prompt):
            return Ask("the policy asks for approval", prompt)
        case PolicyReplace(arguments=arguments):
            problem = replacement_problem(arguments, view.tool)
            if problem is not None:
                return Deny(f"the policy replaced the arguments with ones {problem}", rule=rule)
            replaced = attrs.evolve(call, arguments=arguments)
            screened = _screen(config, _view(replaced, view.tool), approved_guards)
            if screened is not None:
                return screened
            return Allow("allowed by policy with replaced arguments", rule=rule, arguments=arguments)
        case _:
            assert_never(verdict)


def replacement_problem(arguments: str, tool: ToolInfo) -> str | None:
    """Why `arguments`, put in place of a call's by a policy or an approver, cannot run `tool`; `None` when they can.

    They must be the JSON text of an object (blank text is not) and fit the tool's schema when it is
    known (`ToolInfo.parameters`). The answer completes "... replaced the arguments with ones ...".
    """
    problem = json_object_problem(arguments)
    if problem is not None:
        return f"that are not a JSON object: {problem}"
    if tool.parameters is None:
        return None
    problems = validate(parse_arguments(arguments), tool.parameters)
    return f"invalid for tool {tool.name!r}: " + "; ".join(problems) if problems else None


def refuse_unanswered(ask: Ask) -> Deny:
    """The refusal when nobody can answer `ask` (no approval handler): the original's wording."""
    if ask.guard is not None:
        return Deny(f"destructive command requires approval: {ask.prompt}", rule=f"guard:{ask.guard}")
    return Deny("no approval handler installed")


def decision_events(call: ToolCall, decision: PermissionDecision) -> tuple[AgentEvent, ...]:
    """The events that make `decision` on `call` visible in the stream and the durable log.

    `Deny` is `PermissionDenied`, `Allow` is `PermissionGranted`, `Ask` is `ApprovalRequested`;
    `ConsultPolicy` is not a decision yet and has none.
    """
    match decision:
        case Allow(reason=reason, rule=rule, arguments=arguments, approved=approved):
            return (PermissionGranted(call.call_id, call.name, reason, rule, approved, arguments),)
        case Deny(reason=reason, rule=rule):
            return (PermissionDenied(call.name, reason, call.call_id, rule),)
        case Ask():
            return (ApprovalRequested(call.call_id, call.name, call.arguments),)
        case ConsultPolicy():
            return ()
        case _:
            assert_never(decision)
