"""The trio interpreter of the pattern machines (`helikon_fc.core.patterns`): a nursery around the
child runs a machine asks for, and nothing that decides.

`interpret` feeds `Begin`, starts each `RunChild` as a task of one nursery (so concurrent children
run concurrently, and a sequence's one child at a time), feeds each child's `ChildEnded` back as it
ends, writes `WriteState` to the run's state, sends the machine's events, cancels the children on
`StopChildren`, and returns the terminal event of `Finish`. Stepping the machine is synchronous, so
tasks feeding it in turn never see a half-made step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeAlias, TypeVar

import trio

from ..core import OtherError, RunFailed, TerminalEvent
from ..core.patterns import (
    Begin,
    ChildEnded,
    ChildOutcome,
    Finish,
    PatternInput,
    PatternState,
    RunChild,
    StopChildren,
    WriteState,
    advance,
)
from ..shell.context import RunContext
from ._workflow import Emit

Ctx = TypeVar("Ctx")

ChildRunner: TypeAlias = Callable[[RunChild], Awaitable[tuple[ChildOutcome, bool]]]
"""Runs the child a `RunChild` names to its end: its outcome, and whether it escalated."""


class _Interpreter(Generic[Ctx]):
    __slots__ = ("_ctx", "_nursery", "_run_child", "_say", "_state", "terminal")

    def __init__(self, state: PatternState, ctx: RunContext[Ctx], say: Emit, run_child: ChildRunner) -> None:
        self._state = state
        self._ctx = ctx
        self._say = say
        self._run_child = run_child
        self.terminal: TerminalEvent | None = None

    async def run(self, input: PatternInput) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            await self._feed(input)

    async def _feed(self, input: PatternInput) -> None:  # noqa: ASYNC910 - a step sends what it has; children checkpoint
        outcome = advance(self._state, input)
        self._state = outcome.state
        for action in outcome.actions:
            if isinstance(action, WriteState):
                self._ctx.state.set(action.key, action.text)
        for event in outcome.events:
            await self._say(event)
        for action in outcome.actions:
            match action:
                case RunChild():
                    self._nursery.start_soon(self._child, action)
                case StopChildren():
                    self._nursery.cancel_scope.cancel()
                case Finish(terminal=terminal):
                    self.terminal = terminal

    async def _child(self, action: RunChild) -> None:
        outcome, escalated = await self._run_child(action)
        await self._feed(ChildEnded(action.index, outcome, escalated))


async def interpret(state: PatternState, ctx: RunContext[Ctx], say: Emit, run_child: ChildRunner) -> TerminalEvent:
    """Run the machine from `state` to its end: `run_child` performs each child run, `say` sends the machine's
    own events, and `ctx` is the workflow's run context (its state gets the `WriteState`s)."""
    interpreter = _Interpreter(state, ctx, say, run_child)
    await interpreter.run(Begin())
    if interpreter.terminal is None:  # a machine always finishes; this is a bug, said as data
        return RunFailed(OtherError(f"the pattern machine stopped without finishing in {type(state).__name__}"))
    return interpreter.terminal
