"""`ParallelAgent`: run independent sub-agents concurrently and merge their answers."""

from __future__ import annotations

from collections import Counter
from typing import Generic

import attrs
import trio
from typing_extensions import TypeVar

from ..core import (
    AssistantMessage,
    BranchFailure,
    MessageOutput,
    OtherError,
    ParallelFailed,
    RunFailed,
    TerminalEvent,
)
from ..shell import _checks
from ..shell.context import RunContext
from ..shell.durable import child_context
from ..shell.input import AgentInput
from ._workflow import (
    COMPLETED,
    ChildFailed,
    ChildOutcome,
    ChildSucceeded,
    Emit,
    Interleaving,
    compact_json,
    open_workflow_stream,
    run_child,
    workflow_fingerprint,
    write_state,
)
from .protocol import Agent, RunStream

Ctx = TypeVar("Ctx", default=None)


@attrs.frozen
class ParallelAgent(Generic[Ctx]):
    """Runs its branches concurrently, in one trio nursery, and merges their answers.

    Every branch gets the workflow's input and runs in ``ctx.subagent_child()``; their events
    interleave live on the outer stream, each run of one branch's events preceded by an
    `AgentUpdated` naming its agent. Concurrency is trio's: cooperative, so it suits branches
    that wait on models and tools; a branch that computes without awaiting holds up its siblings.

    - Branch keys must be unique: a duplicate key fails the run before any branch starts (two
      concurrent writers of one state key would race).
    - Each branch that completes writes its final text to ``ctx.state[key]`` (a JSON string).
    - On success the run ends with one `MessageOutput` whose text is a compact JSON object
      ``{key: branch output}`` with sorted keys, so the final output does not depend on which
      branch finished first.
    - Failure is collect-all: a failed branch lets its siblings finish, then the run fails once
      with `ParallelFailed`, naming every failed branch by key (sorted by key).

    Immutable: `add` and `branch` return a new agent.

    Attributes:
        name: the workflow's name (its `RunStarted`, and the `agent` of the merged message).
        description: what the workflow does, in one sentence.
        branches: ``(state key, agent)`` pairs.
    """

    name: str = attrs.field(validator=_checks.field(_checks.require_name))
    description: str = attrs.field(default="", validator=_checks.field(_checks.instance_of(str, "a string")))
    branches: tuple[tuple[str, Agent[Ctx]], ...] = attrs.field(
        default=(), kw_only=True, validator=_checks.field(_checks.keyed_agents)
    )

    def add(self, agent: Agent[Ctx]) -> ParallelAgent[Ctx]:
        """A copy with `agent` added as a branch, keyed by its name."""
        _checks.require_agent("ParallelAgent.add", "agent", agent)
        return self.branch(agent.name, agent)

    def branch(self, key: str, agent: Agent[Ctx]) -> ParallelAgent[Ctx]:
        """A copy with `agent` added as a branch whose output is stored under `key`."""
        _checks.require_name("ParallelAgent.branch", "key", key)
        _checks.require_agent("ParallelAgent.branch", "agent", agent)
        return attrs.evolve(self, branches=(*self.branches, (key, agent)))

    def run(self, ctx: RunContext[Ctx], input: AgentInput) -> RunStream:
        """Run the branches concurrently; see `ParallelAgent`."""

        async def body(emit: Emit, ctx: RunContext[Ctx]) -> TerminalEvent:
            if not self.branches:
                await trio.lowlevel.checkpoint()  # a run that ends at once still lets others run
                return RunFailed(
                    OtherError(_checks.empty_workflow("ParallelAgent", self.name, "branches", ".add(agent)"))
                )
            counts = Counter(key for key, _ in self.branches)
            duplicates = sorted(key for key, count in counts.items() if count > 1)
            if duplicates:
                message = f"duplicate parallel branch key(s): {', '.join(duplicates)}"
                return RunFailed(OtherError(message))  # noqa: ASYNC910 - `emit_run` sent RunStarted just before
            outcomes: dict[str, ChildOutcome] = {}
            merged = Interleaving(emit, self.name)

            async def run_branch(key: str, agent: Agent[Ctx]) -> None:
                child = child_context(ctx.subagent_child(), ctx, key)
                outcome = await run_child(agent, child, input, merged.emitter())
                if isinstance(outcome, ChildSucceeded):
                    write_state(ctx, key, outcome.text)
                outcomes[key] = outcome

            async with trio.open_nursery() as nursery:
                for key, agent in self.branches:
                    nursery.start_soon(run_branch, key, agent)
            return await _merge(self.name, outcomes, merged.emit)

        return open_workflow_stream(
            self.name, ctx, body, input=input, pattern="parallel", fingerprint=self.durable_fingerprint()
        )

    def durable_fingerprint(self) -> str:
        """The fingerprint of this workflow's recorded runs (its name and branches)."""
        return workflow_fingerprint("parallel", self.name, self.branches)


async def _merge(name: str, outcomes: dict[str, ChildOutcome], emit: Emit) -> TerminalEvent:
    """The terminal event of a parallel run whose branches ended with `outcomes`, independent of their order."""
    texts: dict[str, str] = {}
    failures: list[BranchFailure] = []
    for key in sorted(outcomes):
        match outcomes[key]:
            case ChildSucceeded(text=text):
                texts[key] = text
            case ChildFailed(error=error):
                failures.append(BranchFailure(key, error))
    if failures:
        return RunFailed(ParallelFailed(tuple(failures)))  # noqa: ASYNC910 - the branches' nursery was the checkpoint
    await emit(MessageOutput(AssistantMessage(compact_json(texts), agent=name)))
    return COMPLETED
