"""The user code of a run's controls, as a worker's activities run it (in the trio portal).

Hooks, guardrails, an async permission policy and redaction are user code, nondeterministic, so the
workflow never runs them: it asks a worker, which runs the trio shell's own functions (the same
firing order and effects as `helikon_fc.shell.loop.controls`, agent-level hooks only):

- `control`: one hook point (`OnRunStart`, `OnTurnStart`, `OnHandoff`, `OnRunComplete`) or one kind
  of guardrails (input, output) of the agent at a path;
- `authorize` and `finish`: the per-call pipeline around a call the workflow runs itself (an
  `AgentAsTool` call, a child workflow): `PreToolUse` and the permission decision before it,
  `PostToolUse` and redaction after it, as `shell.loop.driver.call_tool` does around a tool.
"""

from __future__ import annotations

import json
from typing import Any

from ..core import (
    AgentError,
    Item,
    ToolCall,
    ToolResult,
    from_json,
    to_json,
)
from ..shell.context.run_context import RunContext
from ..shell.control.guardrails import Tripped, run_input_guardrails, run_output_guardrails
from ..shell.control.hooks import (
    after_tool_call,
    before_tool_call,
    fire_on_handoff,
    fire_on_run_complete,
    fire_on_run_start,
    fire_on_subagent_stop,
    fire_on_turn_start,
)
from ..shell.control.permissions import ApprovalAnswer
from ..shell.control.redaction import redact_result
from ..shell.loop.definition import LoopDefinition
from ..shell.loop.tool_round import Allowed, CallDone, CallHeld, authorize as authorize_call
from ..shell.tools.tool import Tool
from ._payloads import ControlInput, ControlOutput

__all__ = ["Allowed", "authorize", "control", "finish", "subagent_stop"]


async def control(definition: LoopDefinition, ctx: RunContext[Any], request: ControlInput) -> ControlOutput:
    """Fire the hook point or run the guardrails `request` names; what the workflow does next depends on it."""
    hooks, run_hooks, name = definition.hooks, ctx.hooks, definition.name
    match request.point:
        case "run_start" | "turn_start":
            effect = (
                await fire_on_run_start(ctx, hooks, run_hooks, name)
                if request.point == "run_start"
                else await fire_on_turn_start(ctx, hooks, run_hooks, request.turn)
            )
            return _output(ctx, effect.error, list(effect.injections))
        case "handoff":
            return _output(ctx, await fire_on_handoff(ctx, hooks, run_hooks, name, request.target))
        case "run_complete":
            await fire_on_run_complete(ctx, hooks, run_hooks, name)
            return _output(ctx, None)
        case "input_guardrails":
            items: tuple[Item, ...] = from_json(tuple[Item, ...], request.items_json)
            guardrails = (*definition.input_guardrails, *ctx.input_guardrails)  # the agent's, then the run's
            return _tripped(ctx, await run_input_guardrails(guardrails, ctx, items))
        case "output_guardrails":
            checks = (*definition.output_guardrails, *ctx.output_guardrails)
            return _tripped(ctx, await run_output_guardrails(checks, ctx, request.text))
        case _:
            raise ValueError(f"unknown control point {request.point!r}")


async def subagent_stop(ctx: RunContext[Any], agent: str) -> ControlOutput:
    """`OnSubagentStop` for `agent` on the run-level hooks (``ctx.hooks``) of the run that started it."""
    return _output(ctx, await fire_on_subagent_stop(ctx, ctx.hooks, agent))


def _output(ctx: RunContext[Any], error: AgentError | None, injections: list[str] | None = None) -> ControlOutput:
    state = json.dumps(ctx.state.snapshot())
    return ControlOutput(to_json(error) if error is not None else "", injections or [], "", state)


def _tripped(ctx: RunContext[Any], tripped: Tripped | None) -> ControlOutput:
    state = json.dumps(ctx.state.snapshot())
    return ControlOutput("", [], to_json(tripped.events) if tripped is not None else "", state)


async def authorize(
    definition: LoopDefinition,
    tool: Tool[Any] | None,
    call: ToolCall,
    ctx: RunContext[Any],
    answer: ApprovalAnswer | None,
) -> CallDone | CallHeld | Allowed:
    """`PreToolUse`, then the permission decision on the arguments the hooks left (`shell.loop.tool_round.authorize`,
    as `shell.loop.driver.call_tool` orders them).

    Raises:
        HookFailure: a `PreToolUse` hook raised.
    """
    before = await before_tool_call(ctx, definition.hooks, call)
    if isinstance(before, ToolResult):
        return CallDone(before)
    permissions = ctx.permissions
    if permissions is None:
        return Allowed(before)
    return await authorize_call(permissions, tool, before, ctx, answer, given=call)


async def finish(definition: LoopDefinition, call: ToolCall, result: ToolResult, ctx: RunContext[Any]) -> ToolResult:
    """`PostToolUse` (successful calls only), then redaction last.

    Raises:
        HookFailure: a `PostToolUse` hook raised.
    """
    result = await after_tool_call(ctx, definition.hooks, call, result)
    return redact_result(result, ctx.permissions.redaction if ctx.permissions is not None else None)
