"""`SequentialAgent`: run sub-agents in a fixed order, each reading what the earlier ones wrote."""

from __future__ import annotations

from typing import Generic

import attrs
from typing_extensions import TypeVar

from ..core import TerminalEvent
from ..core.patterns import sequential
from ..shell import _checks
from ..shell.context.run_context import RunContext
from ..shell.input import AgentInput, as_input
from ._children import Steps, child_runner
from ._interpreter import interpret
from ._workflow import Emit, open_workflow_stream, workflow_fingerprint
from .protocol import Agent, RunStream

Ctx = TypeVar("Ctx", default=None)


@attrs.frozen
class SequentialAgent(Steps[Ctx], Generic[Ctx]):
    """Runs its steps one after another, failing fast on the first failure.

    Each step gets the workflow's input and runs in ``ctx.subagent_child()`` (shared state, its
    own escalate signal, one level deeper). When a step completes, its final text is written to
    ``ctx.state[key]`` as a JSON string (``key`` defaults to the step's name), where a later
    step's dynamic instructions can read it. The run's final output is the last step's.

    Immutable: `then` and `then_keyed` return a new agent.

    Example:
        >>> pipeline = SequentialAgent("research-then-write", "Research, then draft.")
        >>> pipeline.then(researcher).then(writer)  # doctest: +SKIP

    Attributes:
        name: the workflow's name (its `RunStarted`).
        description: what the workflow does, in one sentence.
        steps: ``(state key, agent)`` pairs, in running order.
    """

    name: str = attrs.field(validator=_checks.field(_checks.require_name))
    description: str = attrs.field(default="", validator=_checks.field(_checks.instance_of(str, "a string")))
    steps: tuple[tuple[str, Agent[Ctx]], ...] = attrs.field(
        default=(), kw_only=True, validator=_checks.field(_checks.keyed_agents)
    )

    def run(self, ctx: RunContext[Ctx], input: AgentInput | str) -> RunStream:
        """Run the steps in order; see `SequentialAgent`."""
        input = as_input("SequentialAgent.run", input)

        async def body(emit: Emit, ctx: RunContext[Ctx]) -> TerminalEvent:
            machine = sequential(self.name, tuple(key for key, _ in self.steps))
            return await interpret(machine, ctx, emit, child_runner(ctx, self.steps, input, lambda: emit))

        return open_workflow_stream(
            self.name, ctx, body, input=input, pattern="sequential", fingerprint=self.durable_fingerprint()
        )

    def durable_fingerprint(self) -> str:
        """The fingerprint of this workflow's recorded runs (its name and steps)."""
        return workflow_fingerprint("sequential", self.name, self.steps)
