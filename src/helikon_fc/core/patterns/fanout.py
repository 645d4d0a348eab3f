"""The machine of `ParallelAgent`: every branch at once, failures collected, answers merged.

`Begin` starts every branch (after refusing an empty workflow or duplicate keys: two concurrent
writers of one state key would race). Each branch that succeeds has its answer written under its
key as it ends. Once every branch has ended, the end does not depend on the order they ended in:
any failure fails the run with `ParallelFailed` (failures sorted by key); else any pause pauses it
with every waiting call (by key); else the workflow says the answers as one compact JSON object
with sorted keys and completes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType

import attrs

from ..errors import AgentError, BranchFailure, OtherError, ParallelFailed
from ..events import ApprovalRequested, MessageOutput, RunFailed, RunPaused
from ..items import AssistantMessage
from .vocabulary import (
    COMPLETED,
    Begin,
    ChildEnded,
    ChildFailed,
    ChildOutcome,
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


def compact_json(value: Mapping[str, str]) -> str:
    """`value` as compact JSON with sorted keys: the merge format of parallel branches and graph sinks."""
    return json.dumps(dict(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _frozen(value: Mapping[int, ChildOutcome]) -> Mapping[int, ChildOutcome]:
    return MappingProxyType(dict(value))


@attrs.frozen
class FanOutState:
    """Where a parallel run stands.

    Attributes:
        name: the workflow's name (the `agent` of its merged message).
        keys: the state key of each branch.
        started: the branches have been started.
        ended: how each branch that has ended ended, by its index.
        finished: the run has finished (every input is now invalid).
    """

    name: str
    keys: tuple[str, ...]
    started: bool = False
    ended: Mapping[int, ChildOutcome] = attrs.field(default=MappingProxyType({}), converter=_frozen)
    finished: bool = False


def parallel(name: str, keys: tuple[str, ...]) -> FanOutState:
    """The state before a `ParallelAgent` run called `name` with branches `keys`."""
    return FanOutState(name, keys)


def advance_fanout(state: FanOutState, input: PatternInput) -> PatternOutcome[FanOutState]:
    """One step of a parallel run."""
    if state.finished:
        return _finish(state, invalid(state, input, "the run has finished"))
    match input:
        case Begin() if not state.started:
            return _begin(state)
        case ChildEnded(index=index) if state.started and 0 <= index < len(state.keys) and index not in state.ended:
            return _on_branch(state, input)
        case _:
            return _finish(state, invalid(state, input))


def _begin(state: FanOutState) -> PatternOutcome[FanOutState]:
    if not state.keys:
        return _finish(state, (Finish(empty_workflow("ParallelAgent", state.name, "branches", ".add(agent)")),))
    counts = Counter(state.keys)
    duplicates = sorted(key for key, count in counts.items() if count > 1)
    if duplicates:
        message = f"duplicate parallel branch key(s): {', '.join(duplicates)}"
        return _finish(state, (Finish(RunFailed(OtherError(message))),))
    runs = tuple(RunChild(index, key, key) for index, key in enumerate(state.keys))
    return PatternOutcome(attrs.evolve(state, started=True), (), runs)


def _on_branch(state: FanOutState, ended: ChildEnded) -> PatternOutcome[FanOutState]:
    state = attrs.evolve(state, ended={**state.ended, ended.index: ended.outcome})
    written: tuple[PatternAction, ...] = ()
    if isinstance(ended.outcome, ChildSucceeded):
        written = (WriteState(state.keys[ended.index], ended.outcome.text),)
    if len(state.ended) < len(state.keys):
        return PatternOutcome(state, (), written)
    by_key = {state.keys[index]: outcome for index, outcome in state.ended.items()}
    return _end(attrs.evolve(state, finished=True), by_key, written)


def _end(
    state: FanOutState, by_key: Mapping[str, ChildOutcome], written: tuple[PatternAction, ...]
) -> PatternOutcome[FanOutState]:
    failures: dict[str, AgentError] = {}
    paused: dict[str, tuple[ApprovalRequested, ...]] = {}
    texts: dict[str, str] = {}
    for key, outcome in by_key.items():
        match outcome:
            case ChildFailed(error=error):
                failures[key] = error
            case ChildPaused(pending=asked):
                paused[key] = asked
            case ChildSucceeded(text=text):
                texts[key] = text
    if failures:
        failed = tuple(BranchFailure(key, failures[key]) for key in sorted(failures))
        return PatternOutcome(state, (), (*written, Finish(RunFailed(ParallelFailed(failed)))))
    if paused:
        pending = tuple(request for key in sorted(paused) for request in paused[key])
        return PatternOutcome(state, (), (*written, Finish(RunPaused(pending))))
    said = MessageOutput(AssistantMessage(compact_json(texts), agent=state.name))
    return PatternOutcome(state, (said,), (*written, Finish(COMPLETED)))


def _finish(state: FanOutState, actions: tuple[PatternAction, ...]) -> PatternOutcome[FanOutState]:
    return PatternOutcome(attrs.evolve(state, finished=True), (), actions)
