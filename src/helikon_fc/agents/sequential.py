"""`SequentialAgent`: run sub-agents in a fixed order, each reading what the earlier ones wrote."""

from __future__ import annotations

from typing import Generic

import attrs
from typing_extensions import TypeVar

from ..core import TerminalEvent
from ..shell import _checks
from ..shell.context import RunContext, child_context
from ..shell.input import AgentInput, as_input
from ._children import Steps, nothing_to_run, step_end
from ._workflow import COMPLETED, Emit, open_workflow_stream, run_child, workflow_fingerprint
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
            if not self.steps:
                return await nothing_to_run("SequentialAgent", self.name, "steps", ".then(agent)")
            for index, (key, agent) in enumerate(self.steps):
                child = child_context(ctx.subagent_child(), ctx, f"{index}:{key}")
                end = step_end(ctx, key, await run_child(agent, child, input, emit))
                if end is not None:
                    return end
            return COMPLETED  # noqa: ASYNC910 - with no steps: `emit_run` sent RunStarted just before

        return open_workflow_stream(
            self.name, ctx, body, input=input, pattern="sequential", fingerprint=self.durable_fingerprint()
        )

    def durable_fingerprint(self) -> str:
        """The fingerprint of this workflow's recorded runs (its name and steps)."""
        return workflow_fingerprint("sequential", self.name, self.steps)
