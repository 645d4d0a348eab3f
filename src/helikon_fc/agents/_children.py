"""What the keyed workflows (sequential, loop, parallel, graph) do around each child run: appending
steps, and performing a pattern machine's `RunChild` (`child_runner`). See `_workflow` for the merge
convention, `_interpreter` for the machines' trio interpreter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, Self, TypeVar, cast

import attrs

from ..core.patterns import ChildRunner, RunChild
from ..shell import _checks
from ..shell.context.run_context import RunContext
from ..shell.input import AgentInput
from ._workflow import ChildOutcome, Emit, run_child
from .protocol import Agent

Ctx = TypeVar("Ctx")


class Steps(Generic[Ctx]):
    """`then` and `then_keyed` of a workflow whose children are its ordered ``steps`` (an attrs field)."""

    __slots__ = ()
    steps: tuple[tuple[str, Agent[Ctx]], ...]

    def then(self, agent: Agent[Ctx]) -> Self:
        """A copy with `agent` appended as a step, keyed by its name."""
        _checks.require_agent(f"{type(self).__name__}.then", "agent", agent)
        return self.then_keyed(agent.name, agent)

    def then_keyed(self, key: str, agent: Agent[Ctx]) -> Self:
        """A copy with `agent` appended as a step whose output is stored under `key`."""
        owner = f"{type(self).__name__}.then_keyed"
        _checks.require_name(owner, "key", key)
        _checks.require_agent(owner, "agent", agent)
        return cast("Self", attrs.evolve(cast("Any", self), steps=(*self.steps, (key, agent))))


def child_runner(
    ctx: RunContext[Ctx],
    children: Sequence[tuple[str, Agent[Ctx]]],
    input: AgentInput,
    emitter: Callable[[], Emit],
) -> ChildRunner:
    """How the keyed workflows perform a `RunChild`: child `index` of `children` runs on `input` (plus the action's
    context) in ``ctx.child("workflow", action.segment)``, its events going to a fresh ``emitter()``."""

    async def run(action: RunChild) -> tuple[ChildOutcome, bool]:
        child = ctx.child("workflow", action.segment)
        child_input = AgentInput((*input.items, *action.context)) if action.context else input
        outcome = await run_child(children[action.index][1], child, child_input, emitter(), action.segment)
        return outcome, child.actions.escalated

    return run
