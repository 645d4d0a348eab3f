"""Lifecycle hooks: async callables the run consults at fixed points, and what their answers do.

A hook is ``async def hook(ctx, point) -> HookDecision | None`` (`None` is `Allow`). At each point
the agent's hooks fire, then the run's, one after the other (original-notes section 8):

- the first `Deny` short-circuits: later hooks are not called;
- `ReplaceInput` and `ReplaceOutput` fill one slot, the last writer wins;
- `InjectSystemMessage` texts accumulate in order;
- a hook that raises stops the firing and fails the run with `HookFailed`.

What the answers do depends on the point (the `fire_*` functions, which the driver will call):

- `OnRunStart`, `OnTurnStart`: `Deny` aborts the run (`HookDenied`); injections are appended as
  system messages at the end of the next model request only, never stored;
- `PreToolUse`: `Deny` becomes the tool's error result (``blocked by PreToolUse hook: R``); a
  replacement (a JSON object) becomes the call's arguments;
- `PostToolUse` (successful calls only): `Deny` becomes an error result (``blocked by PostToolUse
  hook: R``); a replacement becomes the output;
- `OnHandoff`: `Deny` aborts the run before the switch is observed;
- `OnRunComplete`, `OnSubagentStop`: answers are ignored; they are best effort.

`AgentAsTool` sub-runs get empty hooks (`Hooks()`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TypeVar

import attrs
import trio

from ...core import AgentError, HookDenied, HookFailed, JsonObject, JsonValue, ToolCall, ToolResult, parse_arguments
from ..context.control_values import (
    Allow,
    Deny,
    HookDecision,
    HookPoint,
    InjectSystemMessage,
    OnHandoff,
    OnRunComplete,
    OnRunStart,
    OnSubagentStop,
    OnTurnStart,
    PostToolUse,
    PreToolUse,
    ReplaceInput,
    ReplaceOutput,
)
from ..context.run_context import Hook, Hooks, RunContext, as_hooks, require_hook

__all__ = [
    "Allow",
    "Deny",
    "Hook",
    "HookDecision",
    "HookFailure",
    "HookOutcome",
    "HookPoint",
    "Hooks",
    "InjectSystemMessage",
    "OnHandoff",
    "OnRunComplete",
    "OnRunStart",
    "OnSubagentStop",
    "OnTurnStart",
    "PostToolEffect",
    "PostToolUse",
    "PreToolEffect",
    "PreToolUse",
    "ReplaceInput",
    "ReplaceOutput",
    "StartEffect",
    "after_tool_call",
    "as_hooks",
    "before_tool_call",
    "fire",
    "fire_on_handoff",
    "fire_on_run_complete",
    "fire_on_run_start",
    "fire_on_subagent_stop",
    "fire_on_turn_start",
    "fire_post_tool_use",
    "fire_pre_tool_use",
    "point_name",
    "require_hook",
    "subagent_stopped",
]

Ctx = TypeVar("Ctx")


@attrs.frozen
class HookOutcome:
    """What the hooks at one point answered together.

    Attributes:
        denied: The first `Deny`'s reason, or `None`.
        replaced: Whether a hook replaced the input or output; `replacement` is the last value given.
        injections: The system messages to inject, in order.
        failure: The error of a hook that raised (firing stopped there), or `None`.
    """

    denied: str | None = None
    replaced: bool = False
    replacement: JsonValue = None
    injections: tuple[str, ...] = ()
    failure: HookFailed | None = None


def point_name(point: HookPoint) -> str:
    """The snake_case name of a point (``pre_tool_use``), as `HookDenied` and `HookFailed` name it."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(point).__name__).lower()


async def fire(point: HookPoint, ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], run_hooks: Hooks[Ctx]) -> HookOutcome:
    """Fire `point`: the agent's hooks, then the run's, in order, combining their answers (module docstring)."""
    outcome = HookOutcome()
    hooks: Sequence[Hook[Ctx]] = (*agent_hooks.hooks, *run_hooks.hooks)
    await trio.lowlevel.checkpoint()  # a point with no hooks, or hooks that return at once, still checkpoints
    for hook in hooks:
        try:
            decision = await hook(ctx, point)
        except Exception as exc:
            return attrs.evolve(outcome, failure=HookFailed(point_name(point), f"{type(exc).__name__}: {exc}"))
        outcome = _combine(outcome, decision, point)
        if outcome.denied is not None or outcome.failure is not None:
            return outcome
    return outcome


def _combine(outcome: HookOutcome, decision: object, point: HookPoint) -> HookOutcome:
    match decision:
        case None | Allow():
            return outcome
        case Deny(reason=reason):
            return attrs.evolve(outcome, denied=reason)
        case ReplaceInput(value=value) | ReplaceOutput(value=value):
            return attrs.evolve(outcome, replaced=True, replacement=value)
        case InjectSystemMessage(text=text):
            return attrs.evolve(outcome, injections=(*outcome.injections, text))
        case _:
            message = f"returned {type(decision).__name__}, not a hook decision"
            return attrs.evolve(outcome, failure=HookFailed(point_name(point), message))


# What each point's answers do.


@attrs.frozen
class StartEffect:
    """After `OnRunStart` / `OnTurnStart`: the error that aborts the run, or the system messages to inject."""

    error: AgentError | None = None
    injections: tuple[str, ...] = ()


@attrs.frozen
class PreToolEffect:
    """After `PreToolUse`: the call to run (arguments maybe replaced), or the error text that answers it."""

    call: ToolCall
    blocked: str | None = None
    error: HookFailed | None = None


@attrs.frozen
class PostToolEffect:
    """After `PostToolUse`: the output to keep (maybe replaced), or the error text that answers the call."""

    output: JsonValue
    blocked: str | None = None
    error: HookFailed | None = None


def _start_effect(point: OnRunStart | OnTurnStart, outcome: HookOutcome) -> StartEffect:
    if outcome.failure is not None:
        return StartEffect(outcome.failure)
    if outcome.denied is not None:
        return StartEffect(HookDenied(point_name(point), outcome.denied))
    return StartEffect(None, outcome.injections)


async def fire_on_run_start(
    ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], run_hooks: Hooks[Ctx], agent: str
) -> StartEffect:
    """Fire `OnRunStart`: a `Deny` aborts the run; injections go into the first request."""
    point = OnRunStart(agent)
    return _start_effect(point, await fire(point, ctx, agent_hooks, run_hooks))


async def fire_on_turn_start(
    ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], run_hooks: Hooks[Ctx], turn: int
) -> StartEffect:
    """Fire `OnTurnStart`: a `Deny` aborts the run; injections go into this turn's request."""
    point = OnTurnStart(turn)
    return _start_effect(point, await fire(point, ctx, agent_hooks, run_hooks))


async def fire_pre_tool_use(
    ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], run_hooks: Hooks[Ctx], call: ToolCall, arguments: JsonObject
) -> PreToolEffect:
    """Fire `PreToolUse`: a `Deny` blocks the call; a replacement object becomes its arguments."""
    outcome = await fire(PreToolUse(call, arguments), ctx, agent_hooks, run_hooks)
    if outcome.failure is not None:
        return PreToolEffect(call, error=outcome.failure)
    if outcome.denied is not None:
        return PreToolEffect(call, blocked=f"blocked by PreToolUse hook: {outcome.denied}")
    if not outcome.replaced:
        return PreToolEffect(call)
    if not isinstance(outcome.replacement, dict):
        got = type(outcome.replacement).__name__
        return PreToolEffect(
            call, error=HookFailed("pre_tool_use", f"replaced the arguments with {got}, not an object")
        )
    text = json.dumps(outcome.replacement, ensure_ascii=False)
    return PreToolEffect(attrs.evolve(call, arguments=text))


async def fire_post_tool_use(
    ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], run_hooks: Hooks[Ctx], call: ToolCall, output: JsonValue
) -> PostToolEffect:
    """Fire `PostToolUse` (successful calls only): a `Deny` blocks the output; a replacement becomes it."""
    outcome = await fire(PostToolUse(call, output), ctx, agent_hooks, run_hooks)
    if outcome.failure is not None:
        return PostToolEffect(output, error=outcome.failure)
    if outcome.denied is not None:
        return PostToolEffect(output, blocked=f"blocked by PostToolUse hook: {outcome.denied}")
    return PostToolEffect(outcome.replacement if outcome.replaced else output)


async def fire_on_handoff(
    ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], run_hooks: Hooks[Ctx], from_agent: str, to_agent: str
) -> AgentError | None:
    """Fire `OnHandoff` before the switch: the error that aborts the run, or `None` to go on."""
    point = OnHandoff(from_agent, to_agent)
    outcome = await fire(point, ctx, agent_hooks, run_hooks)
    if outcome.failure is not None:
        return outcome.failure
    return HookDenied(point_name(point), outcome.denied) if outcome.denied is not None else None


async def fire_on_run_complete(
    ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], run_hooks: Hooks[Ctx], agent: str
) -> HookFailed | None:
    """Fire `OnRunComplete` (best effort, after the terminal event): answers are ignored; a failure is returned
    for the caller to log, never to fail the finished run."""
    return (await fire(OnRunComplete(agent), ctx, agent_hooks, run_hooks)).failure


async def fire_on_subagent_stop(ctx: RunContext[Ctx], run_hooks: Hooks[Ctx], agent: str) -> HookFailed | None:
    """Fire `OnSubagentStop` on the parent's run-level hooks only (the original's rule): answers are ignored."""
    return (await fire(OnSubagentStop(agent), ctx, Hooks[Ctx](), run_hooks)).failure


# What the rest of the shell calls: the per-call tool pipeline and the sub-agent boundary.


class HookFailure(Exception):
    """A hook raised where its failure cannot travel as data: in a tool call's pipeline or at a sub-agent's stop.

    The run whose hooks these are catches it and fails with `error` (`HookFailed`); it never reaches the model.
    """

    def __init__(self, error: HookFailed) -> None:
        super().__init__(str(error))
        self.error = error


async def before_tool_call(ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], call: ToolCall) -> ToolCall | ToolResult:
    """`PreToolUse` for one call of a round (the agent's hooks, then ``ctx.hooks``).

    Returns:
        The call to run (its arguments replaced if a hook said so), or the error result that answers it
        (``blocked by PreToolUse hook: R``).

    Raises:
        HookFailure: a hook raised, or replaced the arguments with something that is not an object.
    """
    run_hooks = ctx.hooks
    if not agent_hooks and not run_hooks:
        return call  # noqa: ASYNC910 - the pipeline's invoke step checkpoints next
    try:
        arguments = parse_arguments(call.arguments)
    except ValueError:  # an unknown tool's unparsable arguments: its own step reports them
        arguments = {}
    effect = await fire_pre_tool_use(ctx, agent_hooks, run_hooks, call, arguments)
    if effect.error is not None:
        raise HookFailure(effect.error)
    if effect.blocked is not None:
        return ToolResult(call.call_id, effect.blocked, is_error=True)
    return effect.call


async def after_tool_call(
    ctx: RunContext[Ctx], agent_hooks: Hooks[Ctx], call: ToolCall, result: ToolResult
) -> ToolResult:
    """`PostToolUse` for one finished call (successful calls only); the output is the text the model would read.

    Returns:
        `result`, its output replaced (a string verbatim, any other JSON as compact text, as a tool's own
        output), or an error result (``blocked by PostToolUse hook: R``).

    Raises:
        HookFailure: a hook raised, or replaced the output with something that is not JSON.
    """
    run_hooks = ctx.hooks
    if result.is_error or (not agent_hooks and not run_hooks):
        return result  # noqa: ASYNC910 - the invoke step before it checkpointed
    effect = await fire_post_tool_use(ctx, agent_hooks, run_hooks, call, result.output)
    if effect.error is not None:
        raise HookFailure(effect.error)
    if effect.blocked is not None:
        return ToolResult(call.call_id, effect.blocked, is_error=True)
    output = effect.output
    if isinstance(output, str):
        return ToolResult(call.call_id, output)
    try:
        text = json.dumps(output, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        error = HookFailed("post_tool_use", f"replaced the output with a value that is not JSON: {exc}")
        raise HookFailure(error) from None
    return ToolResult(call.call_id, text)


async def subagent_stopped(ctx: RunContext[Ctx], agent: str) -> None:
    """`OnSubagentStop` for `agent` on ``ctx.hooks``, the run-level hooks of the run that started it.

    Raises:
        HookFailure: a hook raised (the run that started the sub-agent fails with it).
    """
    if not ctx.hooks:
        await trio.lowlevel.checkpoint()
        return
    failure = await fire_on_subagent_stop(ctx, ctx.hooks, agent)
    if failure is not None:
        raise HookFailure(failure)
