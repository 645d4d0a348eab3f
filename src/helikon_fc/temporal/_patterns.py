"""The Temporal interpreter of the pattern machines (`helikon_fc.core.patterns`): asyncio tasks of the
workflow around the child runs a machine asks for, and nothing that decides.

The same machines run on trio (`helikon_fc.agents._interpreter`); here a `RunChild` is a task of the
workflow (running the child in this workflow or as a child workflow, as the caller's `run_child`
does), `WriteState` writes the workflow's shared state, and `StopChildren` cancels the tasks.
Deterministic: the machine is pure, and the tasks run on Temporal's event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..core import AgentEvent, OtherError, TerminalEvent, patterns
from ._scope import State


class Interpreter:
    """One run of a machine in a workflow (see the module); `interpret` makes and runs one."""

    __slots__ = ("_run_child", "_say", "_state", "_tasks", "_writes", "stopped", "terminal")

    def __init__(
        self,
        state: patterns.PatternState,
        writes: State,
        say: Callable[[AgentEvent], None],
        run_child: patterns.ChildRunner,
    ):
        self._state = state
        self._writes = writes
        self._say = say
        self._run_child = run_child
        self._tasks: list[asyncio.Task[None]] = []
        self.stopped = False
        self.terminal: TerminalEvent | None = None

    def feed(self, input: patterns.PatternInput) -> None:
        """Step the machine with `input` and perform what it asks for."""
        self._state, writes, events, actions = patterns.step(self._state, input)
        for write in writes:
            self._writes[write.key] = write.text
        for event in events:
            self._say(event)
        for action in actions:
            match action:
                case patterns.RunChild():
                    self._tasks.append(asyncio.ensure_future(self._child(action)))
                case patterns.StopChildren():
                    self.stopped = True
                    for task in self._tasks:
                        task.cancel()
                case patterns.Finish(terminal=terminal):
                    self.terminal = terminal

    async def _child(self, action: patterns.RunChild) -> None:  # noqa: ASYNC910 - asyncio under Temporal: no trio checkpoints
        try:
            outcome, escalated = await self._run_child(action)
        except asyncio.CancelledError:  # noqa: ASYNC103 - re-raised unless `patterns.StopChildren` cancelled it
            if not self.stopped:
                raise
            outcome, escalated = patterns.ChildFailed(OtherError(f"{action.key!r} was stopped")), False
        self.feed(patterns.ChildEnded(action.index, outcome, escalated))

    async def run(self) -> TerminalEvent:
        """Feed `patterns.Begin`, wait for every task started then and since (a child's failure to run propagates), and
        return the machine's terminal event."""
        self.feed(patterns.Begin())
        index = 0
        while index < len(self._tasks):
            await self._tasks[index]
            index += 1
        return self.terminal if self.terminal is not None else patterns.unfinished(self._state)  # noqa: ASYNC910 - asyncio


async def interpret(
    state: patterns.PatternState, writes: State, say: Callable[[AgentEvent], None], run_child: patterns.ChildRunner
) -> TerminalEvent:
    """Run the machine from `state` to its end: `run_child` performs each child run, `say` sends the machine's own
    events, and `writes` (the workflow's shared state) gets the `WriteState`s."""
    return await Interpreter(state, writes, say, run_child).run()
