"""`AgentAsTool`: call another agent like a tool, read its answer, keep reasoning."""

from __future__ import annotations

from typing import Any, Generic

import attrs
from typing_extensions import TypeVar

from ..core import JsonObject, ToolEffect
from ..core.patterns import subrun
from ..core.permissions.checks import member
from ..shell import _checks
from ..shell.context.config import RunConfig
from ..shell.context.run_context import RunContext
from ..shell.control.hooks import subagent_stopped
from ..shell.control.permissions import SubRunPaused
from ..shell.input import AgentInput
from ..shell.tools.tool import ToolContext, ToolError, ToolOutput
from ._workflow import ChildPaused, depth_error, run_child
from .protocol import Agent

Ctx = TypeVar("Ctx", default=None)

_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "What to ask the agent, in plain words."}},
    "required": ["input"],
    "additionalProperties": False,
}


async def _discard(event: object) -> None:
    """No stream to relay into (the caller is no model loop): the questions stay inside the tool."""


def _effect(value: ToolEffect | str) -> ToolEffect:
    return member(ToolEffect, value, "AgentAsTool", "effect")


@attrs.frozen
class AgentAsTool(Generic[Ctx]):
    """Any `Agent` as a `Tool` the parent's model calls with one string argument, ``input``.

    The wrapped agent runs to its end on ``AgentInput.from_user_text(input)`` and its final
    output (the text of its last `MessageOutput`) comes back as the tool result; control always
    returns to the caller. The name and description default to the agent's own.

    The sub-run is isolated (see `sub_run_context`): a fresh in-memory session and fresh state,
    so its turns never touch the parent's conversation, and its own `RunConfig` (`run_config`,
    or else the wrapped agent's own; the parent's ``max_turns`` and ``timeout`` do not cross).
    What crosses: the user context, cancellation (a child token), and the nesting depth with its
    limit — a call that would nest deeper than ``max_agent_depth`` allows is refused with an error
    result the parent's model reads. The limit is the tightest in force along the whole chain of
    callers (a `Runner`'s config, each agent's own `run_config`, the default 8); a sub-run's own
    config can tighten it for the levels below, never loosen it.

    A sub-run that fails becomes an error result the parent's model reads
    (``"agent <name> failed: <error>"``); the parent run goes on. Of the sub-run's events only its
    questions reach the caller's stream, as they are asked (`ApprovalRequested`, ids qualified as
    ``tool:CALL/ID``), so whoever watches the caller sees what to decide, as on Temporal. A sub-run
    that pauses for approval holds the call: the parent pauses with the sub-run's requests, and
    resuming the parent runs the call again, which resumes the sub-run (recorded under the call's id).

    Immutable: `with_name`, `with_description` and `with_run_config` return a new tool.

    Attributes:
        agent: the wrapped agent.
        tool_name: the name the model calls (default: the agent's name).
        tool_description: shown to the model (default: the agent's description).
        run_config: the sub-run's config; `None` leaves the wrapped agent's own in force.
        effect: what a call may change; a sub-agent may do anything, so `SIDE_EFFECT` by default
            (`PLAN` mode refuses it).
    """

    agent: Agent[Ctx] = attrs.field(validator=_checks.field(_checks.require_agent))
    tool_name: str | None = attrs.field(
        default=None, kw_only=True, validator=_checks.field(_checks.optional(_checks.require_name))
    )
    tool_description: str | None = attrs.field(
        default=None, kw_only=True, validator=_checks.field(_checks.optional(_checks.instance_of(str, "a string")))
    )
    run_config: RunConfig | None = attrs.field(
        default=None,
        kw_only=True,
        validator=_checks.field(_checks.optional(_checks.instance_of(RunConfig, "a RunConfig or None"))),
    )
    effect: ToolEffect = attrs.field(default=ToolEffect.SIDE_EFFECT, kw_only=True, converter=_effect)

    @property
    def name(self) -> str:
        """The tool's name: the override, or the wrapped agent's name."""
        return self.tool_name if self.tool_name is not None else self.agent.name

    @property
    def description(self) -> str:
        """The tool's description: the override, or the wrapped agent's description."""
        if self.tool_description is not None:
            return self.tool_description
        return self.agent.description or f"Ask the agent {self.agent.name!r} and get its answer."

    @property
    def parameters(self) -> JsonObject:
        """One required string argument, ``input``."""
        return _PARAMETERS

    @property
    def strict(self) -> bool:
        """The schema is in OpenAI's strict form (every key required, no extra keys), so it is sent as strict."""
        return True

    def with_name(self, name: str) -> AgentAsTool[Ctx]:
        """A copy exposed to the model under `name`."""
        return attrs.evolve(self, tool_name=name)

    def with_description(self, description: str) -> AgentAsTool[Ctx]:
        """A copy shown to the model with `description`."""
        return attrs.evolve(self, tool_description=description)

    def with_run_config(self, config: RunConfig | None) -> AgentAsTool[Ctx]:
        """A copy whose sub-runs use `config` (`None`: the wrapped agent's own)."""
        return attrs.evolve(self, run_config=config)

    def sub_run_context(self, parent: RunContext[Ctx], segment: str) -> RunContext[Ctx]:
        """The context the sub-run gets (recorded, when the caller is, under child id `segment`): the one
        place that decides what crosses the boundary.

        Crosses: the user value, cancellation (a child token: cancelling the parent cancels the
        sub-run, never the reverse), the tracer, the depth (one deeper), the depth limit in force, and
        the permissions (mode, rules, policy, approval handler, redaction) with a resumed run's
        approvals, so a `PLAN` or policy decision applies to the wrapped agent's tools too.
        Fresh: session, state, escalate signal, and no run-level hooks or guardrails (the wrapped agent's
        own still apply; the caller's run-level hooks receive `OnSubagentStop` when it ends). The sub-run's
        config is `run_config`.
        """
        return parent.child("tool", segment).with_run_config(self.run_config)

    async def invoke(self, ctx: ToolContext[Ctx], arguments: JsonObject) -> ToolOutput:
        """Run the wrapped agent on ``arguments["input"]``; its final output is the result.

        Raises:
            ToolError: ``input`` is missing or not a string; the sub-run would nest too deep; the
                sub-run failed. Each becomes an error result for the parent's model.
            HookFailure: an `OnSubagentStop` hook of the caller's run raised (that run fails).
        """
        text: Any = arguments.get("input")
        if not isinstance(text, str):
            raise ToolError(f"invalid arguments for tool {self.name!r}: `input` must be a string")
        parent = ctx.run
        too_deep = depth_error(parent)
        if too_deep is not None:
            raise ToolError(str(too_deep))
        segment = subrun.tool_segment(ctx.call_id)
        child = self.sub_run_context(parent, segment)
        input = AgentInput.from_user_text(text)
        relay = parent.stream or _discard  # its questions, as they are asked (`subrun.SubRun.TOOL`)
        outcome = await run_child(self.agent, child, input, relay, segment, shown=False)
        await subagent_stopped(parent, self.agent.name)  # the caller's run-level hooks (the sub-run has none)
        if isinstance(outcome, ChildPaused):
            raise SubRunPaused(outcome.pending)  # the call waits; a resume runs it again and the sub-run continues
        answer = subrun.tool_answer(ctx.call_id, self.agent.name, outcome)
        if answer.is_error:
            raise ToolError(answer.output)
        return ToolOutput(answer.output)
