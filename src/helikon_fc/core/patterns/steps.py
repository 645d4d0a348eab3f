"""The machine of `SequentialAgent` and `LoopAgent`: steps one at a time, in order, failing fast.

A sequential workflow is a loop of one pass that ignores escalation. After each step that
succeeds its answer is written under its key; a loop then ends with success if the step
escalated, else the next step runs (the first of the next pass after the last; after the last
pass, `MaxIterationsExceeded`). A step that fails or pauses ends the workflow with the same.
"""

from __future__ import annotations

import attrs

from ..errors import MaxIterationsExceeded
from ..events import RunFailed, RunPaused
from .vocabulary import (
    COMPLETED,
    Begin,
    ChildEnded,
    ChildFailed,
    ChildPaused,
    ChildSucceeded,
    Finish,
    PatternAction,
    PatternInput,
    PatternOutcome,
    RunChild,
    WriteState,
    empty_workflow,
    invalid,
)


@attrs.frozen
class StepsState:
    """Where a sequential or loop run stands.

    Attributes:
        name: the workflow's name.
        keys: the state key of each step, in running order.
        passes: the most passes over the steps; `None` for a sequential workflow (one pass, no escalation).
        position: how many step runs have started so far.
        running: a step is running (its `ChildEnded` is awaited).
        finished: the run has finished (every input is now invalid).
    """

    name: str
    keys: tuple[str, ...]
    passes: int | None = None
    position: int = 0
    running: bool = False
    finished: bool = False

    @property
    def is_loop(self) -> bool:
        """Whether this is a loop (passes, escalation) rather than one sequential pass."""
        return self.passes is not None


def sequential(name: str, keys: tuple[str, ...]) -> StepsState:
    """The state before a `SequentialAgent` run called `name` with steps `keys`."""
    return StepsState(name, keys)


def loop(name: str, keys: tuple[str, ...], max_iterations: int) -> StepsState:
    """The state before a `LoopAgent` run called `name` with steps `keys` and `max_iterations` passes."""
    return StepsState(name, keys, max_iterations)


def advance_steps(state: StepsState, input: PatternInput) -> PatternOutcome[StepsState]:
    """One step of a sequential or loop run."""
    if state.finished:
        return _finish(state, invalid(state, input, "the run has finished"))
    match input:
        case Begin() if state.position == 0:
            if not state.keys:
                kind = "LoopAgent" if state.is_loop else "SequentialAgent"
                return _finish(state, (Finish(empty_workflow(kind, state.name, "steps", ".then(agent)")),))
            return _next(state, ())
        case ChildEnded(index=index) if state.running and index == (state.position - 1) % len(state.keys):
            return _on_step(state, input)
        case _:
            return _finish(state, invalid(state, input))


def _on_step(state: StepsState, ended: ChildEnded) -> PatternOutcome[StepsState]:
    match ended.outcome:
        case ChildFailed(error=error):
            return _finish(state, (Finish(RunFailed(error)),))
        case ChildPaused(pending=pending):
            return _finish(state, (Finish(RunPaused(pending)),))
        case ChildSucceeded(text=text):
            written = (WriteState(state.keys[ended.index], text),)
            if state.is_loop and ended.escalated:
                return _finish(state, (*written, Finish(COMPLETED)))
            return _next(state, written)


def _next(state: StepsState, before: tuple[PatternAction, ...]) -> PatternOutcome[StepsState]:
    """Start the next step run, or finish when every pass has run."""
    passes = state.passes if state.passes is not None else 1
    if state.position == passes * len(state.keys):
        end = RunFailed(MaxIterationsExceeded(passes)) if state.is_loop else COMPLETED
        return _finish(state, (*before, Finish(end)))
    iteration, index = divmod(state.position, len(state.keys))
    key = state.keys[index]
    segment = f"{iteration}.{index}:{key}" if state.is_loop else f"{index}:{key}"
    state = attrs.evolve(state, position=state.position + 1, running=True)
    return PatternOutcome(state, (), (*before, RunChild(index, key, segment)))


def _finish(state: StepsState, actions: tuple[PatternAction, ...]) -> PatternOutcome[StepsState]:
    return PatternOutcome(attrs.evolve(state, finished=True, running=False), (), actions)
