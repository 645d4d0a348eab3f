"""`SwarmAgent`: a pool of `LlmAgent`s with full-mesh handoffs; the first member to answer ends the run."""

from __future__ import annotations

from functools import partial
from typing import Any, Generic

import attrs
import trio
from typing_extensions import TypeVar

from ..core import AgentUpdated, MaxHandoffsExceeded, RunFailed, TerminalEvent
from ..core.events import AgentEvent
from ..core.patterns import ChildOutcome, HandoffSeen, RunChild, swarm
from ..shell import _checks
from ..shell.context.run_context import RunContext
from ..shell.input import AgentInput, as_input
from ._interpreter import Interpreter
from ._workflow import Emit, open_workflow_stream, run_child, workflow_fingerprint
from .handoff import Handoff, slug
from .llm_agent import LlmAgent
from .protocol import Agent, RunStream

Ctx = TypeVar("Ctx", default=None)


class SwarmBuildError(ValueError):
    """A swarm definition is invalid: no members, two members with one name (or one transfer tool
    name), an entry that is not a member, or a negative `max_handoffs`."""


def _mesh(members: tuple[LlmAgent[Any], ...]) -> dict[str, LlmAgent[Any]]:
    """Copies of `members`, each with a handoff to every other member that it does not already have.

    The handoffs resolve lazily to the *copies*, so a handoff lands on a member that can hand off
    again: the mesh is cyclic, built from immutable values.
    """
    meshed: dict[str, LlmAgent[Any]] = {}
    for member in members:
        present = {handoff.agent_name for handoff in member.handoffs}
        added = tuple(
            Handoff(
                agent_name=other.name, description=other.description, resolve=partial(meshed.__getitem__, other.name)
            )
            for other in members
            if other.name != member.name and other.name not in present
        )
        meshed[member.name] = member.with_handoffs(*added)
    return meshed


class _Budget:
    """One run's handoff budget, taken where each handoff is decided: when its target is resolved.

    `counting` gives an agent whose handoffs are fed to the swarm's machine (`HandoffSeen`) as they
    resolve their targets, and so on down: every target a handoff resolves to (a member or not) is
    counting too. Once the machine stops the run (`StopChildren`), the target is not run: the
    handoff resolves to an agent that fails at once with `MaxHandoffsExceeded`, so no model or tool
    is called beyond the budget, however far the run is ahead of its consumer (its events wait in
    stream buffers; the handoffs do not).
    """

    __slots__ = ("interpreter", "limit")

    def __init__(self, limit: int, interpreter: Interpreter[Any]) -> None:
        self.limit = limit
        self.interpreter = interpreter

    @property
    def spent(self) -> bool:
        """Whether a handoff beyond the limit was taken (the run is failing)."""
        return self.interpreter.stopped

    def counting(self, agent: LlmAgent[Any]) -> LlmAgent[Any]:
        """`agent` with each handoff fed to the machine as it resolves its target."""
        handoffs = tuple(attrs.evolve(handoff, resolve=partial(self._resolve, handoff)) for handoff in agent.handoffs)
        return attrs.evolve(agent, handoffs=handoffs)

    def _resolve(self, handoff: Handoff[Any]) -> Agent[Any]:
        self.interpreter.feed_now(HandoffSeen())
        if self.interpreter.stopped:
            return _OverBudget(handoff.agent_name, self.limit)
        target = handoff.resolve()
        return self.counting(target) if isinstance(target, LlmAgent) else target


@attrs.frozen
class _OverBudget:
    """What a handoff beyond the budget resolves to: an agent named as the target that fails at once."""

    name: str
    limit: int
    description: str = ""

    def run(self, ctx: RunContext[Any], input: AgentInput) -> RunStream:
        """A run that fails with `MaxHandoffsExceeded` before calling anything."""

        async def body(emit: Emit, ctx: RunContext[Any]) -> TerminalEvent:
            await trio.lowlevel.checkpoint()
            return RunFailed(MaxHandoffsExceeded(self.limit))

        return open_workflow_stream(self.name, ctx, body)


@attrs.frozen
class SwarmAgent(Generic[Ctx]):
    """A pool of `LlmAgent` members that hand the conversation to each other until one answers.

    Build one with `SwarmAgent.builder()`. Every member gets a handoff (a ``transfer_to_<slug>``
    tool) to every other member; the run is the entry member's ordinary `LlmAgent` loop, its
    handoffs nesting as usual, and it ends as soon as the active member answers instead of handing
    off: first to answer wins. Members' events pass through unchanged (``HandoffItem`` and
    ``AgentUpdated`` show who is active); the entry member's `RunStarted` becomes `AgentUpdated`.

    Convergence: every handoff nests one level deeper, so a ping-pong that never ends is bounded by
    ``max_agent_depth`` (`MaxAgentDepthExceeded`). With `max_handoffs` set, each run counts the
    handoffs of its members, and of every agent they hand off to, where each is decided (as its
    target is resolved), not on its stream:
    the first handoff beyond the budget is delivered, its target never runs, and the run fails with
    `MaxHandoffsExceeded(limit)`; no model or tool is called past the budget, however far behind
    the consumer is.

    Attributes:
        name: the swarm's name (its `RunStarted`).
        description: what the swarm does, in one sentence.
        members: the members as given, in order.
        entry: the name of the member that takes the first turn.
        max_handoffs: the handoff budget, or `None` for none beyond ``max_agent_depth``.
    """

    name: str = attrs.field(validator=_checks.field(_checks.require_name))
    description: str
    members: tuple[LlmAgent[Ctx], ...]
    entry: str
    max_handoffs: int | None = None
    _meshed: dict[str, LlmAgent[Any]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_meshed", _mesh(self.members))

    @staticmethod
    def builder() -> SwarmBuilder[Ctx]:
        """A builder with no members yet."""
        return SwarmBuilder()

    def member(self, name: str) -> LlmAgent[Ctx]:
        """The member `name` as the swarm runs it: with its injected handoffs.

        Raises:
            KeyError: no member has that name.
        """
        return self._meshed[name]

    def run(self, ctx: RunContext[Ctx], input: AgentInput | str) -> RunStream:
        """Run the entry member with full-mesh handoffs; see `SwarmAgent`."""
        input = as_input("SwarmAgent.run", input)
        limit = self.max_handoffs

        async def body(emit: Emit, ctx: RunContext[Ctx]) -> TerminalEvent:
            shown = _Shown(emit)
            budget: _Budget | None = None

            async def run_entry(action: RunChild) -> tuple[ChildOutcome, bool]:
                entry = self._meshed[self.entry]
                child = ctx.child("workflow", action.segment)
                member = entry if budget is None else budget.counting(entry)
                return await run_child(member, child, input, shown, action.segment), False

            machine = swarm(self.name, self.entry, limit)
            interpreter = Interpreter(machine, ctx, shown, run_entry, stop=_refused_as_resolved)
            if limit is not None:
                budget = shown.budget = _Budget(limit, interpreter)
            terminal = await interpreter.run()
            if not interpreter.stopped:  # a run over budget ends where its last handoff went: not announced
                await shown.flush()
            return terminal

        return open_workflow_stream(
            self.name, ctx, body, input=input, pattern="swarm", fingerprint=self.durable_fingerprint()
        )

    def durable_fingerprint(self) -> str:
        """The fingerprint of this swarm's recorded runs (its name, members and entry)."""
        members = tuple((member.name, member) for member in self.members)
        return workflow_fingerprint("swarm", self.name, members, entry=self.entry)


def _refused_as_resolved() -> None:
    """How a swarm stops its member on trio: nothing to cancel, the handoff being resolved is refused (`_Budget`)."""


class _Shown:
    """Passes the entry member's events on; once the budget is spent, each announcement waits for the next event.

    The handoff beyond the budget is delivered, but its target never runs, so the `AgentUpdated`
    naming that target, the last event before the run fails, is not: the body drops what is held
    when the run fails with `MaxHandoffsExceeded` and flushes it otherwise.
    """

    __slots__ = ("_emit", "_held", "budget")

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self.budget: _Budget | None = None
        self._held: AgentUpdated | None = None

    async def __call__(self, event: AgentEvent) -> None:
        held, self._held = self._held, None
        if held is not None:
            await self._emit(held)
        if isinstance(event, AgentUpdated) and self.budget is not None and self.budget.spent:
            self._held = event
            await trio.lowlevel.checkpoint()
            return
        await self._emit(event)

    async def flush(self) -> None:
        """Send the announcement held back, if any."""
        held, self._held = self._held, None
        if held is None:
            await trio.lowlevel.checkpoint()
        else:
            await self._emit(held)


@attrs.frozen
class SwarmBuilder(Generic[Ctx]):
    """Declares a `SwarmAgent` step by step; every method returns a new builder.

    ``SwarmAgent.builder().name(..).description(..).member(a).member(b).entry("a").max_handoffs(6).build()``.
    Members must be `LlmAgent`s: they are the only agents that can call transfer tools (a type
    checker rejects anything else).
    """

    swarm_name: str = "swarm"
    swarm_description: str = ""
    swarm_members: tuple[LlmAgent[Ctx], ...] = ()
    swarm_entry: str | None = None
    swarm_max_handoffs: int | None = None

    def name(self, name: str) -> SwarmBuilder[Ctx]:
        """Set the swarm's name (default ``"swarm"``)."""
        _checks.require_name("SwarmBuilder.name", "name", name)
        return attrs.evolve(self, swarm_name=name)

    def description(self, description: str) -> SwarmBuilder[Ctx]:
        """Set the swarm's one-sentence description."""
        return attrs.evolve(self, swarm_description=description)

    def member(self, agent: LlmAgent[Ctx]) -> SwarmBuilder[Ctx]:
        """Add `agent` to the pool.

        Raises:
            TypeError: `agent` is not an `LlmAgent` (a type checker reports this too).
        """
        if not isinstance(agent, LlmAgent):
            raise TypeError(
                f"swarm members must be LlmAgents (only they can call transfer tools), got {type(agent).__name__}"
            )
        return attrs.evolve(self, swarm_members=(*self.swarm_members, agent))

    def entry(self, name: str) -> SwarmBuilder[Ctx]:
        """Let member `name` take the first turn (default: the first member added)."""
        return attrs.evolve(self, swarm_entry=name)

    def max_handoffs(self, limit: int | None) -> SwarmBuilder[Ctx]:
        """Fail the run with `MaxHandoffsExceeded` once more than `limit` handoffs happened (`None`: no budget)."""
        return attrs.evolve(self, swarm_max_handoffs=limit)

    def build(self) -> SwarmAgent[Ctx]:
        """The swarm, checked.

        Raises:
            SwarmBuildError: no members; two members with one name, or whose names make the same
                ``transfer_to_<slug>`` tool; an entry that is not a member; a negative budget.
        """
        if not self.swarm_members:
            raise SwarmBuildError(f"swarm {self.swarm_name!r} has no members; add at least one with .member(agent)")
        by_tool: dict[str, str] = {}
        for member in self.swarm_members:
            tool = "transfer_to_" + slug(member.name)
            if tool in by_tool:
                other = by_tool[tool]
                problem = "two members named" if other == member.name else f"members {other!r} and"
                raise SwarmBuildError(
                    f"swarm {self.swarm_name!r} has {problem} {member.name!r}"
                    + ("" if other == member.name else f", which both hand off through {tool!r}")
                    + "; member names must be unique"
                )
            by_tool[tool] = member.name
        names = [member.name for member in self.swarm_members]
        entry = self.swarm_entry if self.swarm_entry is not None else names[0]
        if entry not in names:
            raise SwarmBuildError(
                f"swarm {self.swarm_name!r} has no member {entry!r} to enter with; members: {', '.join(names)}"
            )
        if self.swarm_max_handoffs is not None and self.swarm_max_handoffs < 0:
            raise SwarmBuildError(f"max_handoffs must be 0 or more (or None), got {self.swarm_max_handoffs}")
        return SwarmAgent(
            name=self.swarm_name,
            description=self.swarm_description,
            members=self.swarm_members,
            entry=entry,
            max_handoffs=self.swarm_max_handoffs,
        )
