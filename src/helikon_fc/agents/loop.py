"""`LoopAgent`: repeat sub-agents until one of them escalates, within an iteration budget."""

from __future__ import annotations

from typing import Generic

import attrs
from typing_extensions import TypeVar

from ..core import TerminalEvent
from ..core.patterns import loop
from ..shell import _checks
from ..shell.context.run_context import RunContext
from ..shell.input import AgentInput, as_input
from ._children import Steps, child_runner
from ._interpreter import interpret
from ._workflow import Emit, open_workflow_stream, workflow_fingerprint
from .protocol import Agent, RunStream

Ctx = TypeVar("Ctx", default=None)


def _at_least_one(owner: str, argument: str, value: object) -> None:
    _checks.require_int(owner, argument, value, 1)


@attrs.frozen
class LoopAgent(Steps[Ctx], Generic[Ctx]):
    """Repeats its steps, in order, up to `max_iterations` passes, until a step escalates.

    Each step runs in ``ctx.subagent_child()`` with a fresh escalate signal; after each step
    completes its final text is written to ``ctx.state[key]`` (a JSON string) and its signal is
    checked. A tool that called ``actions.escalate()`` during that step ends the loop with
    `RunCompleted`, before the rest of the pass runs (the step itself always finishes first).
    Running out of passes without an escalation fails with `MaxIterationsExceeded`; a failing
    step fails the loop at once.

    Immutable: `then` and `then_keyed` return a new agent.

    Attributes:
        name: the workflow's name (its `RunStarted`).
        description: what the workflow does, in one sentence.
        max_iterations: the most passes over the steps (at least 1).
        steps: ``(state key, agent)`` pairs, in running order.
    """

    name: str = attrs.field(validator=_checks.field(_checks.require_name))
    description: str = attrs.field(default="", validator=_checks.field(_checks.instance_of(str, "a string")))
    max_iterations: int = attrs.field(default=10, validator=_checks.field(_at_least_one))
    steps: tuple[tuple[str, Agent[Ctx]], ...] = attrs.field(
        default=(), kw_only=True, validator=_checks.field(_checks.keyed_agents)
    )

    def run(self, ctx: RunContext[Ctx], input: AgentInput | str) -> RunStream:
        """Run the passes; see `LoopAgent`."""
        input = as_input("LoopAgent.run", input)

        async def body(emit: Emit, ctx: RunContext[Ctx]) -> TerminalEvent:
            machine = loop(self.name, tuple(key for key, _ in self.steps), self.max_iterations)
            return await interpret(machine, ctx, emit, child_runner(ctx, self.steps, input, lambda: emit))

        return open_workflow_stream(
            self.name, ctx, body, input=input, pattern="loop", fingerprint=self.durable_fingerprint()
        )

    def durable_fingerprint(self) -> str:
        """The fingerprint of this workflow's recorded runs (its name and steps)."""
        return workflow_fingerprint("loop", self.name, self.steps)
