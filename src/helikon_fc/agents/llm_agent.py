"""`LlmAgent`: an agent whose turns a language model takes, with tools, handoffs and structured output."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic

import attrs
from typing_extensions import TypeVar

from ..core import ModelSettings, OutputSchema
from ..models.protocol import Model
from ..shell import _checks
from ..shell.context.config import RunConfig
from ..shell.context.run_context import RunContext
from ..shell.control.guardrails import Guardrail, guardrail_tuple
from ..shell.control.hooks import Hook, Hooks, as_hooks
from ..shell.input import AgentInput, as_input
from ..shell.loop.definition import LoopDefinition
from ..shell.loop.driver import open_loop_run
from ..shell.loop.protocol import RunStream
from ..shell.loop.recording import llm_fingerprint
from ..shell.tools.tool import Tool
from ..shell.tools.tool_source import ToolSource
from .handoff import Handoff

Ctx = TypeVar("Ctx", default=Any)
"""The user context type; `Any` when nothing (instructions, tools) pins it."""


def _tools(value: Iterable[Tool[Any] | ToolSource]) -> tuple[Tool[Any] | ToolSource, ...]:
    return tuple(value)


def _tool_or_source(owner: str, argument: str, value: object) -> None:
    """A tool, or a source of tools listed when a run starts (an MCP server)."""
    if not isinstance(value, ToolSource):
        _checks.require_tool(owner, argument, value)


def _handoffs(value: Iterable[Handoff[Any]]) -> tuple[Handoff[Any], ...]:
    return tuple(value)


_HANDOFF = "a Handoff (e.g. Handoff.to(agent))"


def _input_guardrails(value: object) -> tuple[Guardrail[Any], ...]:
    return guardrail_tuple("LlmAgent", "input_guardrails", value)


def _output_guardrails(value: object) -> tuple[Guardrail[Any], ...]:
    return guardrail_tuple("LlmAgent", "output_guardrails", value)


def _instructions(owner: str, argument: str, value: object) -> None:
    """Instructions are a string or a callable of the run context returning one."""
    if not (isinstance(value, str) or callable(value)):
        raise TypeError(_checks.message(owner, argument, value, "a string, a callable (RunContext) -> str, or None"))


@attrs.frozen(kw_only=True)
class LlmAgent(Generic[Ctx]):
    """An agent driven by a language model: the tool loop of the functional core, run by the trio driver.

    Immutable: the ``with_*`` methods return changed copies. Definitions are checked when built
    (a duplicate tool name or an unsupported `output_type` raises `ValueError`/`TypeError` here);
    a handoff whose tool name collides with another handoff or a tool is rejected when a run
    starts, with `HandoffCollisionError`, before any model call.

    Attributes:
        name: shown in events (`RunStarted`, `AssistantMessage.agent`) and used for handoff tools.
        model: the `Model` that takes the turns.
        instructions: the system prompt: a string, or a callable of the run context rendered once
            per run (at its start).
        description: one sentence saying what the agent does (for handoffs and agent-as-tool).
        tools: the tools the model may call, and sources of tools (an MCP server, see ``docs/mcp.md``)
            whose tools are listed when each run starts and offered like the others.
        handoffs: the agents the model may hand control to.
        output_type: when set, the run ends with a structured-output turn whose JSON must decode
            into this type (an attrs class or a plain type); see `RunResultStreaming.collect_typed`.
        model_settings: sampling and tool-use knobs passed to the model.
        run_config: the agent's own `RunConfig`; a `Runner`'s config (or any config installed on the
            run context) wins over it.
        input_guardrails: `Guardrail` checks on the run's user text. They run concurrently with each
            other and with the first model call, but no tool runs and nothing is delivered before all
            have passed; a tripwire ends the run with `GuardrailTriggered`, then `RunFailed(GuardrailTripped)`.
        output_guardrails: `Guardrail` checks on the final answer's text, before it is delivered; a
            tripwire replaces the final step's events the same way.
        hooks: the agent's own lifecycle hooks (async callables, or a `Hooks`); at every point they
            fire before the run-level ones on `RunContext.hooks`. See ``docs/control.md``.
    """

    name: str = attrs.field(validator=_checks.field(_checks.require_name))
    model: Model = attrs.field(validator=_checks.field(_checks.require_model))
    instructions: str | Callable[[RunContext[Ctx]], str] | None = attrs.field(
        default=None, validator=_checks.field(_checks.optional(_instructions))
    )
    description: str = attrs.field(default="", validator=_checks.field(_checks.instance_of(str, "a string")))
    tools: tuple[Tool[Ctx] | ToolSource, ...] = attrs.field(
        default=(), converter=_tools, validator=_checks.each(_tool_or_source)
    )
    handoffs: tuple[Handoff[Ctx], ...] = attrs.field(
        default=(), converter=_handoffs, validator=_checks.each(_checks.instance_of(Handoff, _HANDOFF))
    )
    output_type: type[Any] | None = None
    model_settings: ModelSettings | None = attrs.field(
        default=None, validator=_checks.field(_checks.optional(_checks.instance_of(ModelSettings, "a ModelSettings")))
    )
    run_config: RunConfig | None = attrs.field(
        default=None, validator=_checks.field(_checks.optional(_checks.instance_of(RunConfig, "a RunConfig or None")))
    )

    input_guardrails: tuple[Guardrail[Ctx], ...] = attrs.field(default=(), converter=_input_guardrails)
    output_guardrails: tuple[Guardrail[Ctx], ...] = attrs.field(default=(), converter=_output_guardrails)
    hooks: Hooks[Ctx] = attrs.field(factory=Hooks, converter=as_hooks)

    # Built once per agent: the one value the driver runs (it reads nothing else of the agent).
    _definition: LoopDefinition = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        names: set[str] = set()
        tools: list[Tool[Ctx]] = []
        sources: list[ToolSource] = []
        for tool in self.tools:
            if isinstance(tool, ToolSource):
                if tool in sources:
                    raise ValueError(f"agent {self.name!r} has {tool.source_name} twice in its tools")
                sources.append(tool)
                continue
            if tool.name in names:
                raise ValueError(f"agent {self.name!r} has two tools named {tool.name!r}; tool names must be unique")
            names.add(tool.name)
            tools.append(tool)
        schema: OutputSchema | None = None
        if self.output_type is not None:
            from ..shell.tools.type_schema import output_schema_for

            schema = output_schema_for(self.output_type)
        definition = LoopDefinition(
            name=self.name,
            model=self.model,
            instructions=self.instructions,
            tools=tuple(tools),
            tool_sources=tuple(sources),
            handoff_targets=tuple(h.target() for h in self.handoffs),
            resolvers={h.agent_name: h.resolve for h in self.handoffs},
            settings=self.model_settings or ModelSettings(),
            output_schema=schema,
            run_config=self.run_config,
            input_guardrails=self.input_guardrails,
            output_guardrails=self.output_guardrails,
            hooks=self.hooks,
        )
        object.__setattr__(self, "_definition", definition)  # after the fields' validators have run

    @property
    def definition(self) -> LoopDefinition:
        """What the driver runs: this agent as one frozen `LoopDefinition`."""
        return self._definition

    def run(self, ctx: RunContext[Ctx], input: AgentInput | str) -> RunStream:
        """Start a run: ``async with agent.run(ctx, input) as events: async for event in events: ...``.

        `RunStarted` comes first, deltas stream live, exactly one terminal event comes last. A
        failure mid-run is a `RunFailed` event; a failure to start (`HandoffCollisionError`) is
        raised when the block is entered.
        """
        input = as_input("LlmAgent.run", input)
        return open_loop_run(self._definition, ctx, input)

    def durable_fingerprint(self) -> str:
        """The fingerprint of this agent's recorded runs: its name, tools, handoffs and output schema.

        `Runner.resume` refuses to continue a run recorded with another fingerprint.
        """
        return llm_fingerprint(self._definition)

    def with_instructions(self, instructions: str | Callable[[RunContext[Ctx]], str] | None) -> LlmAgent[Ctx]:
        """A copy with other instructions."""
        return attrs.evolve(self, instructions=instructions)

    def with_model(self, model: Model) -> LlmAgent[Ctx]:
        """A copy taking its turns with `model`."""
        return attrs.evolve(self, model=model)

    def with_description(self, description: str) -> LlmAgent[Ctx]:
        """A copy with another description."""
        return attrs.evolve(self, description=description)

    def with_tools(self, *tools: Tool[Ctx] | ToolSource) -> LlmAgent[Ctx]:
        """A copy with `tools` added after the existing ones."""
        return attrs.evolve(self, tools=self.tools + tools)

    def with_handoffs(self, *handoffs: Handoff[Ctx]) -> LlmAgent[Ctx]:
        """A copy with `handoffs` added after the existing ones."""
        return attrs.evolve(self, handoffs=self.handoffs + handoffs)

    def with_output_type(self, output_type: type[Any] | None) -> LlmAgent[Ctx]:
        """A copy with another structured-output type (`None` for plain text)."""
        return attrs.evolve(self, output_type=output_type)

    def with_model_settings(self, settings: ModelSettings | None) -> LlmAgent[Ctx]:
        """A copy with other model settings."""
        return attrs.evolve(self, model_settings=settings)

    def with_run_config(self, config: RunConfig | None) -> LlmAgent[Ctx]:
        """A copy with its own run config."""
        return attrs.evolve(self, run_config=config)

    def with_input_guardrails(self, *guardrails: Guardrail[Ctx]) -> LlmAgent[Ctx]:
        """A copy with `guardrails` added after its input guardrails."""
        return attrs.evolve(self, input_guardrails=self.input_guardrails + guardrails)

    def with_output_guardrails(self, *guardrails: Guardrail[Ctx]) -> LlmAgent[Ctx]:
        """A copy with `guardrails` added after its output guardrails."""
        return attrs.evolve(self, output_guardrails=self.output_guardrails + guardrails)

    def with_hooks(self, *hooks: Hook[Ctx]) -> LlmAgent[Ctx]:
        """A copy with `hooks` added after its own hooks."""
        return attrs.evolve(self, hooks=Hooks((*self.hooks.hooks, *hooks)))
