"""`ParallelAgent`: run independent sub-agents concurrently and merge their answers."""

from __future__ import annotations

from typing import Generic

import attrs
from typing_extensions import TypeVar

from ..core import TerminalEvent
from ..core.patterns import parallel
from ..shell import _checks
from ..shell.context.run_context import RunContext
from ..shell.input import AgentInput, as_input
from ._children import child_runner
from ._interpreter import interpret
from ._workflow import Emit, Interleaving, open_workflow_stream, workflow_fingerprint
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

    def run(self, ctx: RunContext[Ctx], input: AgentInput | str) -> RunStream:
        """Run the branches concurrently; see `ParallelAgent`."""
        input = as_input("ParallelAgent.run", input)

        async def body(emit: Emit, ctx: RunContext[Ctx]) -> TerminalEvent:
            merged = Interleaving(emit, self.name)
            machine = parallel(self.name, tuple(key for key, _ in self.branches))
            return await interpret(machine, ctx, merged.emit, child_runner(ctx, self.branches, input, merged.emitter))

        return open_workflow_stream(
            self.name, ctx, body, input=input, pattern="parallel", fingerprint=self.durable_fingerprint()
        )

    def durable_fingerprint(self) -> str:
        """The fingerprint of this workflow's recorded runs (its name and branches)."""
        return workflow_fingerprint("parallel", self.name, self.branches)
