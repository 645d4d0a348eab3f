"""The `Tool` protocol for hand-written tools, what a tool receives (`ToolContext`) and returns (`ToolOutput`)."""

from __future__ import annotations

import json
from typing import Generic, Protocol, TypeVar, runtime_checkable

import attrs

from ...core import JsonObject, JsonValue, ToolCall, ToolDef, ToolEffect, ToolInfo
from ..context.run_context import ActionsHandle, RunContext, WorkerGate

Ctx = TypeVar("Ctx")
Ctx_contra = TypeVar("Ctx_contra", contravariant=True)


@attrs.frozen
class ToolContext(Generic[Ctx]):
    """What a running tool may use: the run's context, its own call id, and the `actions` signals."""

    run: RunContext[Ctx]
    call_id: str
    tool_name: str

    @property
    def user(self) -> Ctx:
        """The application's own value from the run context."""
        return self.run.user

    @property
    def run_id(self) -> str | None:
        """The id of the recorded run this call belongs to (`None` when the run is not recorded).

        With `call_id` it is stable across a resume: ``(run_id, call_id)`` is the call's idempotency
        key, so a tool with side effects can tell a call made again after a crash from a new one.
        """
        return self.run.run_id

    @property
    def actions(self) -> ActionsHandle:
        """Signals to the enclosing orchestrator; ``actions.escalate()`` ends a `LoopAgent`."""
        return self.run.actions

    def for_worker_thread(self, gate: WorkerGate) -> ToolContext[Ctx]:
        """This context as a sync tool's worker thread sees it (see `RunContext.for_worker_thread`)."""
        return ToolContext(self.run.for_worker_thread(gate), self.call_id, self.tool_name)


@attrs.frozen
class ToolOutput:
    """What a tool returns: a string reaches the model verbatim, any other JSON value as compact sorted-key JSON."""

    content: JsonValue

    def render(self) -> str:
        """The text the model reads."""
        if isinstance(self.content, str):
            return self.content
        return json.dumps(self.content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ToolError(Exception):
    """Raised by a tool to fail its call with a message the model reads (the run goes on)."""


@runtime_checkable
class Tool(Protocol[Ctx]):
    """A tool the model can call.

    `parameters` is the JSON Schema of its arguments (an object schema); arguments are checked
    against it before `invoke` runs. `invoke` returns a `ToolOutput` or raises `ToolError`;
    any other exception is also reported to the model as an error result.

    Optional attributes are read when present: ``strict: bool`` (`parameters` is in OpenAI's
    strict form, sent with ``strict: true``), ``timeout: float | None`` (seconds a call may run)
    and ``effect: ToolEffect`` (what a call may change; `tool_effect` reads it, default
    ``SIDE_EFFECT``). See ``docs/tools.md`` and ``docs/control.md``.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> JsonObject: ...

    async def invoke(self, ctx: ToolContext[Ctx], arguments: JsonObject) -> ToolOutput: ...


def tool_effect(tool: Tool[Ctx]) -> ToolEffect:
    """The effect `tool` declares (its ``effect`` attribute: a `ToolEffect` or its value string), or
    `ToolEffect.SIDE_EFFECT` when it declares none (or something that is not an effect)."""
    effect = getattr(tool, "effect", ToolEffect.SIDE_EFFECT)
    if isinstance(effect, str):
        return next((one for one in ToolEffect if one.value == effect), ToolEffect.SIDE_EFFECT)
    return effect if isinstance(effect, ToolEffect) else ToolEffect.SIDE_EFFECT


def tool_info(call: ToolCall, tool: Tool[Ctx] | None) -> ToolInfo:
    """What the permission layer knows of the tool `call` names: `tool` (its effect and parameters), or an
    unknown tool when there is none by that name."""
    if tool is None:
        return ToolInfo(call.name, known=False)
    return ToolInfo(call.name, tool_effect(tool), known=True, parameters=tool.parameters)


def tool_def(tool: Tool[Ctx]) -> ToolDef:
    """The `ToolDef` the model sees for `tool`."""
    strict = bool(getattr(tool, "strict", False))
    return ToolDef(tool.name, tool.description, tool.parameters, strict=strict)
