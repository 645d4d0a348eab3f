"""`LoopDefinition`: everything the driver needs to run one model loop, as one frozen value.

An `LlmAgent` builds its definition once, when it is built, and hands it to the driver on every
run; the driver reads nothing else of the agent. So the shell runs model loops without knowing the
agent types layered on top of it, and what a run depends on is visible in one place (a durable
run can record it, a test can build one directly).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

from ...core import HandoffCollision, HandoffTarget, ModelSettings, OutputSchema, ToolDef
from ...core.records import ToolsOffered
from ...models.protocol import Model
from ..context.config import RunConfig
from ..context.run_context import RunContext
from ..control.guardrails import Guardrail
from ..control.hooks import Hooks
from ..tools.tool import Tool, tool_def
from ..tools.tool_source import ToolSource
from .protocol import Agent

Instructions = str | Callable[[RunContext[Any]], str] | None
"""A system prompt: a string, a callable of the run context (rendered once per run), or none."""


def _frozen_resolvers(value: Mapping[str, Callable[[], Agent[Any]]]) -> Mapping[str, Callable[[], Agent[Any]]]:
    return MappingProxyType(dict(value))


@attrs.frozen(kw_only=True)
class LoopDefinition:
    """What one model loop is: the model, its prompt, the tools and handoffs it offers, its limits.

    Attributes:
        name: the agent's name (events, ``AssistantMessage.agent``).
        model: the `Model` that takes the turns.
        instructions: the system prompt (see `Instructions`).
        tools: the tools the model may call, names unique.
        tool_sources: where more tools come from when a run starts (MCP servers); the driver lists
            them for each run and runs a copy of this definition with them added to `tools`.
        offered_tools: on that copy, what its sources listed (recorded when the run is, see
            `shell.tools.offered_tools`).
        handoff_targets: the handoffs the model may take, as the core describes them.
        resolvers: for each handoff target's agent name, how to find that agent when the handoff happens.
        settings: the model settings of every request.
        output_schema: the structured-output schema of the final turn, or `None` for plain text.
        run_config: the agent's own `RunConfig`; a config installed on the run context wins over it.
        input_guardrails: checked on the run's user text, beside the first model call (see `shell.loop.controls`).
        output_guardrails: checked on the final answer before it is delivered.
        hooks: the agent's own hooks; they fire before the run-level ones (``RunContext.hooks``).
        tool_defs: the tools as the model sees them (derived).
        tools_by_name: the tools by name, read-only (derived).
        collision: the first transfer-tool name claimed twice, which stops a run from starting (derived).
    """

    name: str
    model: Model
    instructions: Instructions = None
    tools: tuple[Tool[Any], ...] = ()
    tool_sources: tuple[ToolSource, ...] = ()
    offered_tools: ToolsOffered | None = None
    handoff_targets: tuple[HandoffTarget, ...] = ()
    resolvers: Mapping[str, Callable[[], Agent[Any]]] = attrs.field(
        factory=dict, converter=_frozen_resolvers, eq=False, repr=False
    )
    settings: ModelSettings = ModelSettings()
    output_schema: OutputSchema | None = None
    run_config: RunConfig | None = None
    input_guardrails: tuple[Guardrail[Any], ...] = ()
    output_guardrails: tuple[Guardrail[Any], ...] = ()
    hooks: Hooks[Any] = Hooks()
    tool_defs: tuple[ToolDef, ...] = attrs.field(
        init=False, eq=False, repr=False, default=attrs.Factory(lambda self: tuple(map(tool_def, self.tools)), True)
    )
    tools_by_name: Mapping[str, Tool[Any]] = attrs.field(
        init=False,
        eq=False,
        repr=False,
        default=attrs.Factory(lambda self: MappingProxyType({t.name: t for t in self.tools}), True),
    )
    collision: HandoffCollision | None = attrs.field(
        init=False,
        eq=False,
        repr=False,
        default=attrs.Factory(lambda self: first_collision(self.tools, self.handoff_targets), True),
    )


def first_collision(tools: tuple[Tool[Any], ...], targets: tuple[HandoffTarget, ...]) -> HandoffCollision | None:
    """The first transfer-tool name claimed twice (by two handoffs, or by a handoff and a tool)."""
    claims: dict[str, list[str]] = {}
    for tool in tools:
        claims.setdefault(tool.name, []).append(f"tool {tool.name}")
    for target in targets:
        claims.setdefault(target.tool_name, []).append(target.agent)
    for target in targets:
        owners = claims[target.tool_name]
        if len(owners) > 1:
            return HandoffCollision(target.tool_name, tuple(owners))
    return None
