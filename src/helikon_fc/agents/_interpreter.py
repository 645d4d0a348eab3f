"""The trio interpreter of the pattern machines (`helikon_fc.core.patterns`): a nursery around the
child runs a machine asks for, and nothing that decides.

`interpret` feeds `Begin`, starts each `RunChild` as a task of one nursery (so concurrent children
run concurrently, and a sequence's one child at a time), feeds each child's `ChildEnded` back as it
ends, writes `WriteState` to the run's state, sends the machine's events, stops the children on
`StopChildren`, and returns the terminal event of `Finish`. Stepping the machine is synchronous, so
tasks feeding it in turn never see a half-made step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import trio

from ..core import AgentEvent, TerminalEvent
from ..core.patterns import (
    Begin,
    ChildEnded,
    ChildRunner,
    Finish,
    PatternAction,
    PatternInput,
    PatternState,
    RunChild,
    StopChildren,
    step,
    unfinished,
)
from ..shell.context.run_context import RunContext
from ._workflow import Emit

Ctx = TypeVar("Ctx")


class Interpreter(Generic[Ctx]):
    """One run of a machine on trio (see the module); `interpret` makes and runs one.

    `stop` is how `StopChildren` is performed: by default the children's nursery is cancelled; a swarm
    refuses the handoff being resolved instead, so what its member said up to then is still delivered.
    """

    __slots__ = ("_ctx", "_nursery", "_run_child", "_say", "_state", "_stop", "stopped", "terminal")

    def __init__(
        self,
        state: PatternState,
        ctx: RunContext[Ctx],
        say: Emit,
        run_child: ChildRunner,
        stop: Callable[[], None] | None = None,
    ) -> None:
        self._state = state
        self._ctx = ctx
        self._say = say
        self._run_child = run_child
        self._stop = stop
        self.stopped = False
        self.terminal: TerminalEvent | None = None

    async def run(self) -> TerminalEvent:
        """Feed `Begin`, run the children the machine asks for, and return its terminal event."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            await self._feed(Begin())
        return self.terminal if self.terminal is not None else unfinished(self._state)

    def feed_now(self, input: PatternInput) -> None:
        """Feed an input whose step sends no events, from code that cannot wait (a handoff being resolved)."""
        events, actions = self._step(input)
        assert not events, f"{input!r} made the machine say {events!r}; feed it from a task instead"
        self._perform(actions)

    async def _feed(self, input: PatternInput) -> None:  # noqa: ASYNC910 - a step sends what it has; children checkpoint
        events, actions = self._step(input)
        for event in events:
            await self._say(event)
        self._perform(actions)

    def _step(self, input: PatternInput) -> tuple[tuple[AgentEvent, ...], tuple[PatternAction, ...]]:
        """Step the machine and write what it records; the events to send and the actions to perform next."""
        self._state, writes, events, actions = step(self._state, input)
        for write in writes:
            self._ctx.state.set(write.key, write.text)
        return events, actions

    def _perform(self, actions: tuple[PatternAction, ...]) -> None:
        for action in actions:
            match action:
                case RunChild():
                    self._nursery.start_soon(self._child, action)
                case StopChildren():
                    self.stopped = True
                    if self._stop is None:
                        self._nursery.cancel_scope.cancel()
                    else:
                        self._stop()
                case Finish(terminal=terminal):
                    self.terminal = terminal

    async def _child(self, action: RunChild) -> None:
        outcome, escalated = await self._run_child(action)
        await self._feed(ChildEnded(action.index, outcome, escalated))


async def interpret(state: PatternState, ctx: RunContext[Ctx], say: Emit, run_child: ChildRunner) -> TerminalEvent:
    """Run the machine from `state` to its end: `run_child` performs each child run, `say` sends the machine's
    own events, and `ctx` is the workflow's run context (its state gets the `WriteState`s)."""
    return await Interpreter(state, ctx, say, run_child).run()
