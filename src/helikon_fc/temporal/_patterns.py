"""The Temporal interpreter of the pattern machines (`helikon_fc.core.patterns`): asyncio tasks of the
workflow around the child runs a machine asks for, and nothing that decides.

The same machines run on trio (`helikon_fc.agents._interpreter`); here a `RunChild` is a task of the
workflow (running the child in this workflow or as a child workflow, as the caller's `run_child`
does), `WriteState` writes the workflow's shared state, and `StopChildren` cancels the tasks.
Deterministic: the machine is pure, and the tasks run on Temporal's event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeAlias

from ..core import AgentEvent, OtherError, RunFailed, TerminalEvent
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
from ._scope import State

ChildRunner: TypeAlias = Callable[[RunChild], Awaitable[tuple[ChildOutcome, bool]]]
"""Runs the child a `RunChild` names to its end: its outcome, and whether it escalated."""


class _Interpreter:
    __slots__ = ("_run_child", "_say", "_state", "_stopped", "_tasks", "_writes", "terminal")

    def __init__(self, state: PatternState, writes: State, say: Callable[[AgentEvent], None], run_child: ChildRunner):
        self._state = state
        self._writes = writes
        self._say = say
        self._run_child = run_child
        self._tasks: list[asyncio.Task[None]] = []
        self._stopped = False
        self.terminal: TerminalEvent | None = None

    def feed(self, input: PatternInput) -> None:
        outcome = advance(self._state, input)
        self._state = outcome.state
        for action in outcome.actions:
            if isinstance(action, WriteState):
                self._writes[action.key] = action.text
        for event in outcome.events:
            self._say(event)
        for action in outcome.actions:
            match action:
                case RunChild():
                    self._tasks.append(asyncio.ensure_future(self._child(action)))
                case StopChildren():
                    self._stopped = True
                    for task in self._tasks:
                        task.cancel()
                case Finish(terminal=terminal):
                    self.terminal = terminal

    async def _child(self, action: RunChild) -> None:
        outcome, escalated = await self._run_child(action)
        self.feed(ChildEnded(action.index, outcome, escalated))

    async def settle(self) -> None:  # noqa: ASYNC910 - asyncio under Temporal's loop: awaiting tasks is the wait
        """Wait for every task started so far and since (a child's failure to run propagates)."""
        index = 0
        while index < len(self._tasks):
            try:
                await self._tasks[index]
            except asyncio.CancelledError:  # noqa: ASYNC103 - re-raised unless `StopChildren` cancelled that task
                if not (self._stopped and self._tasks[index].cancelled()):
                    raise
            index += 1


async def interpret(
    state: PatternState, writes: State, say: Callable[[AgentEvent], None], run_child: ChildRunner
) -> TerminalEvent:
    """Run the machine from `state` to its end: `run_child` performs each child run, `say` sends the machine's own
    events, and `writes` (the workflow's shared state) gets the `WriteState`s."""
    interpreter = _Interpreter(state, writes, say, run_child)
    interpreter.feed(Begin())
    await interpreter.settle()
    if interpreter.terminal is None:  # a machine always finishes; this is a bug, said as data
        return RunFailed(OtherError(f"the pattern machine stopped without finishing in {type(state).__name__}"))
    return interpreter.terminal
