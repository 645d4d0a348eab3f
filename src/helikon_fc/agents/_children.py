"""What the keyed workflows (sequential, loop, parallel, graph) do around each child run: appending
steps, performing a pattern machine's `RunChild` (`child_runner`), and the graph's bookkeeping of the
outcomes of concurrent children (see `_workflow` for the merge convention, `_interpreter` for the
machines' trio interpreter)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Self, TypeVar, cast

import attrs

from ..core import (
    AgentError,
    ApprovalRequested,
    AssistantMessage,
    BranchFailure,
    MessageOutput,
    RunFailed,
    RunPaused,
    TerminalEvent,
)
from ..core.patterns import RunChild
from ..shell import _checks
from ..shell.context import RunContext, child_context
from ..shell.input import AgentInput
from ._interpreter import ChildRunner
from ._workflow import COMPLETED, ChildFailed, ChildOutcome, ChildPaused, ChildSucceeded, Emit, run_child, write_state
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
    context) in ``ctx.subagent_child()`` at the action's segment, its events going to a fresh ``emitter()``."""

    async def run(action: RunChild) -> tuple[ChildOutcome, bool]:
        child = child_context(ctx.subagent_child(), ctx, action.segment)
        child_input = AgentInput((*input.items, *action.context)) if action.context else input
        outcome = await run_child(children[action.index][1], child, child_input, emitter())
        return outcome, child.actions.escalated

    return run


async def run_keyed(ctx: RunContext[Ctx], key: str, agent: Agent[Ctx], input: AgentInput, emit: Emit) -> ChildOutcome:
    """Run the child `key` (recorded under `key`), writing its answer under `key` when it succeeds."""
    outcome = await run_child(agent, child_context(ctx.subagent_child(), ctx, key), input, emit)
    if isinstance(outcome, ChildSucceeded):
        write_state(ctx, key, outcome.text)
    return outcome


@attrs.define
class Outcomes:
    """The outcomes of concurrent children by key, and the one terminal event they make."""

    texts: dict[str, str] = attrs.Factory(dict)
    failures: dict[str, AgentError] = attrs.Factory(dict)
    paused: dict[str, tuple[ApprovalRequested, ...]] = attrs.Factory(dict)

    def add(self, key: str, outcome: ChildOutcome) -> None:
        """Record how the child `key` ended."""
        match outcome:
            case ChildSucceeded(text=text):
                self.texts[key] = text
            case ChildFailed(error=error):
                self.failures[key] = error
            case ChildPaused(pending=pending):
                self.paused[key] = pending

    async def end(
        self,
        owner: str,
        emit: Emit,
        failed: Callable[[tuple[BranchFailure, ...]], AgentError],
        merge: Callable[[Mapping[str, str]], str],
    ) -> TerminalEvent:
        """The workflow's end, independent of the order the children ended in.

        Any failure fails it with ``failed(failures sorted by key)``; else any pause pauses it with every
        waiting call (by key); else it emits ``merge(texts)`` as `owner`'s message and completes. Called
        once the children's nursery has closed (that was the checkpoint of the early returns).
        """
        if self.failures:
            failures = tuple(BranchFailure(key, self.failures[key]) for key in sorted(self.failures))
            return RunFailed(failed(failures))  # noqa: ASYNC910 - the children's nursery was the checkpoint
        if self.paused:
            pending = tuple(request for key in sorted(self.paused) for request in self.paused[key])
            return RunPaused(pending)  # noqa: ASYNC910 - as above
        await emit(MessageOutput(AssistantMessage(merge(self.texts), agent=owner)))
        return COMPLETED
