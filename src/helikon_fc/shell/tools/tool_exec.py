"""Running one tool call: every way it can go wrong becomes an error result the model reads.

`execute_tool_call` never raises, except for trio's ``Cancelled`` (a run being cancelled must
unwind through it) and `HookFailure` (a hook of the calling run raised inside the tool: the run
fails). Everything else — an unknown tool, argument text that is not JSON, arguments
off the schema, a `ToolError`, any other exception, a timeout — is a `ToolResult` with
``is_error=True`` and a message written for the model:

- the problem `transition` found with the call (``unknown tool: 'NAME' (available tools: ...)``,
  ``invalid arguments for tool ...``), when the driver passes it
- ``unknown tool: NAME``
- ``invalid arguments for tool 'NAME': not valid JSON (...)`` / ``...: $.city: missing required field``
- the `ToolError`'s own message
- ``tool NAME raised TypeName: message`` (a failing nursery inside the tool is named by its leaf exceptions)
- ``tool NAME timed out after N s`` (when the tool has a ``timeout`` attribute, in seconds)
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import trio

from ...core import JsonObject, ToolCall, ToolResult, parse_arguments, validate
from ..context.run_context import RunContext
from ..control._redaction import redact_result
from ..control.hooks import HookFailure
from ..control.permissions import SubRunPaused
from ..telemetry.tracing import current_span, within_span
from .tool import Tool, ToolContext, ToolError, ToolOutput

__all__ = ["execute_tool_call", "tool_error_type", "traced_tool_call"]

Ctx = TypeVar("Ctx")


async def execute_tool_call(
    tool: Tool[Ctx] | None,
    call: ToolCall,
    ctx: RunContext[Ctx],
    *,
    checked: bool = False,
    arguments: JsonObject | None = None,
    problem: str | None = None,
) -> ToolResult:
    """Run `call` with `tool` (`None` when no tool has that name) and return its result.

    Args:
        tool: The tool the call names, or `None` if there is none.
        call: The model's call: its id, the tool name and the argument JSON text (blank means ``{}``).
        ctx: The run's context; the tool receives ``ToolContext(ctx, call.call_id, tool.name)``.
        checked: The arguments were already checked against ``tool.parameters`` (the driver passes
            `True`: `transition` checks every call it lets run), so only parse them.
        arguments: With `checked`, the arguments `transition` parsed from ``call.arguments``
            (`ExecuteTools.arguments`): the tool receives them and the text is not parsed again.
        problem: Why `transition` found the call cannot run (`ExecuteTools.problems`): with `checked` (the
            arguments it judged), or for an unknown tool, it is the call's answer and nothing runs.

    Returns:
        ``ToolResult(call.call_id, output)`` on success, or an error result (``is_error=True``)
        whose text says what went wrong.

    Raises:
        trio.Cancelled: the surrounding scope was cancelled.
        SubRunPaused: the tool's sub-run paused for approval; nothing else escapes.
    """
    if problem is not None and (checked or tool is None):
        return _error(call, problem)  # noqa: ASYNC910 - as the error paths below
    if tool is None:
        # No checkpoint on the error paths: the driver's step, which asked for this call, began with one.
        return ToolResult(call.call_id, f"unknown tool: {call.name}", is_error=True)  # noqa: ASYNC910
    name = tool.name
    if arguments is None or not checked:
        try:
            arguments = parse_arguments(call.arguments)
        except json.JSONDecodeError as exc:
            return _error(call, f"invalid arguments for tool {name!r}: not valid JSON ({exc})")  # noqa: ASYNC910
        except ValueError as exc:
            return _error(call, f"invalid arguments for tool {name!r}: {exc}")  # noqa: ASYNC910
        problems = () if checked else validate(arguments, tool.parameters)
        if problems:
            return _error(call, f"invalid arguments for tool {name!r}: " + "; ".join(problems))  # noqa: ASYNC910

    tool_ctx = ToolContext(ctx, call.call_id, name)
    timeout: float | None = getattr(tool, "timeout", None)
    try:
        output: object
        if timeout is None:
            output = await tool.invoke(tool_ctx, arguments)
        else:
            timed_out, output = await _invoke_with_timeout(tool, tool_ctx, arguments, timeout)
            if timed_out:
                return _error(call, f"tool {name} timed out after {timeout:g} s")
    except SubRunPaused:
        raise  # the call waits for its sub-run's approvals (see `shell.loop.tool_round`)
    except ToolError as exc:
        return _error(call, str(exc) or f"tool {name} failed")  # noqa: ASYNC910
    except HookFailure:
        raise  # a hook of the calling run raised inside the tool (an agent-as-tool's `OnSubagentStop`): the run fails
    except Exception as exc:
        return _error(call, f"tool {name} raised {_describe(exc)}")  # noqa: ASYNC910
    if not isinstance(output, ToolOutput):
        return _error(call, f"tool {name} returned {type(output).__name__}, not a ToolOutput")
    try:
        return ToolResult(call.call_id, output.render())
    except (TypeError, ValueError) as exc:
        return _error(call, f"tool {name} returned output that is not JSON: {exc}")


async def _invoke_with_timeout(
    tool: Tool[Ctx], tool_ctx: ToolContext[Ctx], arguments: JsonObject, timeout: float
) -> tuple[bool, object]:
    """``(True, None)`` when the tool ran out of time, else ``(False, what invoke returned)``.

    The flag comes from the cancel scope, not from the value: a broken tool returning `None` in time
    must be reported as broken, not as timed out.
    """
    output: object = None
    with trio.move_on_after(timeout) as scope:
        output = await tool.invoke(tool_ctx, arguments)
    return scope.cancelled_caught, output


def _describe(exc: BaseException) -> str:
    """``TypeName: message``; an exception group (a tool's own nursery failing) by its leaf exceptions."""
    if isinstance(exc, BaseExceptionGroup):
        leaves = _leaves(exc)
        if len(leaves) == 1:
            return _describe(leaves[0])
        return f"{type(exc).__name__}: " + "; ".join(_describe(leaf) for leaf in leaves)
    detail = str(exc)
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    leaves: list[BaseException] = []
    for exc in group.exceptions:
        leaves.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return leaves


def _error(call: ToolCall, message: str) -> ToolResult:
    return ToolResult(call.call_id, message, is_error=True)


async def traced_tool_call(
    tool: Tool[Any] | None,
    call: ToolCall,
    ctx: RunContext[Any],
    *,
    checked: bool = False,
    arguments: JsonObject | None = None,
    problem: str | None = None,
) -> ToolResult:
    """`execute_tool_call` inside a tool-call span of ``ctx.tracer`` (which must be set)."""
    tracer = ctx.tracer
    assert tracer is not None
    span = tracer.start_tool_call(call, current_span())
    with within_span(span):
        result = await execute_tool_call(tool, call, ctx, checked=checked, arguments=arguments, problem=problem)
    permissions = ctx.permissions  # the span records the output as the run will redact it; hooks still see it whole
    redaction = permissions.redaction if permissions is not None else None
    span.finish(redact_result(result, redaction), tool_error_type(tool, call, result))
    return result


def tool_error_type(tool: Tool[Any] | None, call: ToolCall, result: ToolResult) -> str | None:
    """A low-cardinality name for a failed call: ``unknown_tool``, ``timeout`` or ``tool_error``; `None` on success."""
    if not result.is_error:
        return None
    if tool is None:
        return "unknown_tool"
    if getattr(tool, "timeout", None) is not None and result.output.startswith(f"tool {tool.name} timed out after "):
        return "timeout"
    return "tool_error"
