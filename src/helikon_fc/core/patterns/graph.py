"""The machine of `GraphAgent`: the `Wavefront` of its DAG, each node run as soon as its last
predecessor completes, failures collected with their descendants skipped.

`Begin` runs every source. A node's run gets the graph's input followed by one context message per
predecessor, in declaration order (`context_message`), and is named by its key. A node that
succeeds has its answer written under its key and may make successors ready; one that fails (or
pauses) skips its transitive descendants, while independent branches run on. Once every node has
run or been skipped, the end does not depend on the order they ended in: any failure fails the run
with `GraphFailed` (failed nodes sorted by key, skipped ones sorted); else any pause pauses it with
every waiting call (by key); else the graph says its sinks' answer (one sink's text verbatim,
several as sorted-key JSON) and completes.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from ..errors import AgentError, BranchFailure, GraphFailed
from ..events import ApprovalRequested, MessageOutput, RunFailed, RunPaused
from ..items import AssistantMessage, UserMessage
from ..wavefront import Wavefront
from .fanout import compact_json
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


def context_message(key: str, text: str) -> UserMessage:
    """How a predecessor's output reaches a successor: ``UserMessage("[<key>]\\n<text>")``."""
    return UserMessage(f"[{key}]\n{text}")


def sinks_text(sinks: tuple[str, ...], texts: Mapping[str, str]) -> str:
    """A graph's final text: its one sink's verbatim, or several sinks' as compact JSON by key."""
    return texts[sinks[0]] if len(sinks) == 1 else compact_json({key: texts[key] for key in sinks})


def _frozen(value: Mapping[str, object]) -> Mapping[str, object]:
    return MappingProxyType(dict(value))


@attrs.frozen
class GraphState:
    """Where a graph run stands.

    Attributes:
        name: the graph's name (the `agent` of its final message).
        wave: the wavefront of its DAG (its nodes in declaration order: a node's index is its position).
        texts: the answers of the nodes that succeeded, by key.
        failures: the errors of the nodes that failed, by key.
        paused: what the waiting calls of the nodes that paused ask, by key.
        started: `Begin` was fed.
        finished: the run has finished (every input is now invalid).
    """

    name: str
    wave: Wavefront
    texts: Mapping[str, str] = attrs.field(default=MappingProxyType({}), converter=_frozen)
    failures: Mapping[str, AgentError] = attrs.field(default=MappingProxyType({}), converter=_frozen)
    paused: Mapping[str, tuple[ApprovalRequested, ...]] = attrs.field(default=MappingProxyType({}), converter=_frozen)
    started: bool = False
    finished: bool = False


def graph(name: str, wave: Wavefront) -> GraphState:
    """The state before a `GraphAgent` run called `name` over the DAG of `wave` (nothing run yet)."""
    return GraphState(name, wave)


def advance_graph(state: GraphState, input: PatternInput) -> PatternOutcome[GraphState]:
    """One step of a graph run."""
    if state.finished:
        return _finish(state, invalid(state, input, "the run has finished"))
    match input:
        case Begin() if not state.started:
            if not state.wave.nodes:
                return _finish(state, (Finish(empty_workflow("GraphAgent", state.name, "nodes", ".node(key, agent)")),))
            return _launch(attrs.evolve(state, started=True), state.wave.ready_in_order(), ())
        case ChildEnded(index=index) if (
            0 <= index < len(state.wave.nodes) and state.wave.nodes[index] in state.wave.running
        ):
            return _on_node(state, state.wave.nodes[index], input)
        case _:
            return _finish(state, invalid(state, input))


def _launch(state: GraphState, keys: tuple[str, ...], before: tuple[PatternAction, ...]) -> PatternOutcome[GraphState]:
    """Start the nodes `keys` (ready, in order), after the actions `before`."""
    wave = state.wave
    runs: list[PatternAction] = []
    for key in keys:
        wave = wave.start(key)
        context = tuple(context_message(p, state.texts[p]) for p in wave.predecessors[key])
        runs.append(RunChild(wave.nodes.index(key), key, key, context))
    return PatternOutcome(attrs.evolve(state, wave=wave), (), (*before, *runs))


def _on_node(state: GraphState, key: str, ended: ChildEnded) -> PatternOutcome[GraphState]:
    match ended.outcome:
        case ChildSucceeded(text=text):
            wave, ready = state.wave.complete(key)
            state = attrs.evolve(state, wave=wave, texts={**state.texts, key: text})
            outcome = _launch(state, ready, (WriteState(key, text),))
            return _end(outcome.state, outcome.actions) if outcome.state.wave.finished else outcome
        case ChildFailed(error=error):
            state = attrs.evolve(state, wave=state.wave.fail(key)[0], failures={**state.failures, key: error})
        case ChildPaused(pending=pending):  # its successors wait too: a resume runs them
            state = attrs.evolve(state, wave=state.wave.fail(key)[0], paused={**state.paused, key: pending})
    return _end(state, ()) if state.wave.finished else PatternOutcome(state)


def _end(state: GraphState, before: tuple[PatternAction, ...]) -> PatternOutcome[GraphState]:
    state = attrs.evolve(state, finished=True)
    if state.failures:
        failed = tuple(BranchFailure(key, state.failures[key]) for key in sorted(state.failures))
        return PatternOutcome(
            state, (), (*before, Finish(RunFailed(GraphFailed(failed, tuple(sorted(state.wave.skipped))))))
        )
    if state.paused:
        pending = tuple(request for key in sorted(state.paused) for request in state.paused[key])
        return PatternOutcome(state, (), (*before, Finish(RunPaused(pending))))
    said = MessageOutput(AssistantMessage(sinks_text(state.wave.sinks, state.texts), agent=state.name))
    return PatternOutcome(state, (said,), (*before, Finish(COMPLETED)))


def _finish(state: GraphState, actions: tuple[PatternAction, ...]) -> PatternOutcome[GraphState]:
    return PatternOutcome(attrs.evolve(state, finished=True), (), actions)
