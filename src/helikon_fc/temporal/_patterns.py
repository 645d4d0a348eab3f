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
    ChildFailed,
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


class Interpreter:
    """One run of a machine in a workflow (see the module); `interpret` makes and runs one."""

    __slots__ = ("_run_child", "_say", "_state", "_tasks", "_writes", "stopped", "terminal")

    def __init__(self, state: PatternState, writes: State, say: Callable[[AgentEvent], None], run_child: ChildRunner):
        self._state = state
        self._writes = writes
        self._say = say
        self._run_child = run_child
        self._tasks: list[asyncio.Task[None]] = []
        self.stopped = False
        self.terminal: TerminalEvent | None = None

    def feed(self, input: PatternInput) -> None:
        """Step the machine with `input` and perform what it asks for."""
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
                    self.stopped = True
                    for task in self._tasks:
                        task.cancel()
                case Finish(terminal=terminal):
                    self.terminal = terminal

    async def _child(self, action: RunChild) -> None:  # noqa: ASYNC910 - asyncio under Temporal: no trio checkpoints
        try:
            outcome, escalated = await self._run_child(action)
        except asyncio.CancelledError:  # noqa: ASYNC103 - re-raised unless `StopChildren` cancelled it
            if not self.stopped:
                raise
            outcome, escalated = ChildFailed(OtherError(f"{action.key!r} was stopped")), False
        self.feed(ChildEnded(action.index, outcome, escalated))

    async def run(self) -> TerminalEvent:
        """Feed `Begin`, wait for every task started then and since (a child's failure to run propagates), and
        return the machine's terminal event."""
        self.feed(Begin())
        index = 0
        while index < len(self._tasks):
            await self._tasks[index]
            index += 1
        if self.terminal is None:  # a machine always finishes; this is a bug, said as data
            name = type(self._state).__name__
            return RunFailed(OtherError(f"the pattern machine stopped without finishing in {name}"))  # noqa: ASYNC910
        return self.terminal  # noqa: ASYNC910 - asyncio under Temporal's loop: awaiting the tasks was the wait


async def interpret(
    state: PatternState, writes: State, say: Callable[[AgentEvent], None], run_child: ChildRunner
) -> TerminalEvent:
    """Run the machine from `state` to its end: `run_child` performs each child run, `say` sends the machine's own
    events, and `writes` (the workflow's shared state) gets the `WriteState`s."""
    return await Interpreter(state, writes, say, run_child).run()
