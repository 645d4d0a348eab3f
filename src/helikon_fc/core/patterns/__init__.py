"""The multi-agent patterns as pure machines of the shape of `transition`: (state, input) -> (state, events,
actions). `advance` steps any of them; the trio agents and the Temporal workflow are two interpreters of
the same machines (see docs/architecture.md)."""

from __future__ import annotations

from typing import TypeAlias

from ..errors import OtherError
from ..events import AgentEvent, RunFailed
from .fanout import FanOutState, advance_fanout, compact_json, parallel
from .graph import GraphState, advance_graph, context_message, graph, sinks_text
from .steps import StepsState, advance_steps, loop, sequential
from .swarm import SwarmState, advance_swarm, swarm
from .vocabulary import (
    COMPLETED,
    Begin,
    ChildEnded,
    ChildFailed,
    ChildOutcome,
    ChildPaused,
    ChildRunner,
    ChildSucceeded,
    Finish,
    HandoffSeen,
    PatternAction,
    PatternInput,
    PatternOutcome,
    RunChild,
    StopChildren,
    WriteState,
)

PatternState: TypeAlias = StepsState | FanOutState | SwarmState | GraphState
"""The state of any pattern machine."""


Step: TypeAlias = tuple[PatternState, tuple[WriteState, ...], tuple[AgentEvent, ...], tuple[PatternAction, ...]]
"""One step as an interpreter performs it: the next state, the state writes (performed first), the events to
send (next), and the other actions (last, in order)."""


def step(state: PatternState, input: PatternInput) -> Step:
    """One step of whichever machine `state` belongs to, its actions split in the order a runtime performs them."""
    outcome = advance(state, input)
    writes = tuple(action for action in outcome.actions if isinstance(action, WriteState))
    others = tuple(action for action in outcome.actions if not isinstance(action, WriteState))
    return outcome.state, writes, outcome.events, others


def unfinished(state: PatternState) -> RunFailed:
    """The end of a run whose machine stopped without finishing (a runtime bug, said as data)."""
    return RunFailed(OtherError(f"the pattern machine stopped without finishing in {type(state).__name__}"))


def advance(state: PatternState, input: PatternInput) -> PatternOutcome[PatternState]:
    """One step of whichever machine `state` belongs to."""
    if isinstance(state, StepsState):
        return advance_steps(state, input)
    if isinstance(state, SwarmState):
        return advance_swarm(state, input)
    if isinstance(state, GraphState):
        return advance_graph(state, input)
    return advance_fanout(state, input)


__all__ = [
    "COMPLETED",
    "Begin",
    "ChildEnded",
    "ChildFailed",
    "ChildOutcome",
    "ChildPaused",
    "ChildRunner",
    "ChildSucceeded",
    "FanOutState",
    "Finish",
    "GraphState",
    "HandoffSeen",
    "PatternAction",
    "PatternInput",
    "PatternOutcome",
    "PatternState",
    "RunChild",
    "Step",
    "StepsState",
    "StopChildren",
    "SwarmState",
    "WriteState",
    "advance",
    "advance_fanout",
    "advance_graph",
    "advance_steps",
    "advance_swarm",
    "compact_json",
    "context_message",
    "graph",
    "loop",
    "parallel",
    "sequential",
    "sinks_text",
    "step",
    "swarm",
    "unfinished",
]
