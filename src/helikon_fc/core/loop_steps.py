"""The decisions a model loop's interpreter makes around `transition`, for every runtime.

`transition` decides the loop; an interpreter (the trio driver, the Temporal workflow) performs the
actions it asks for. Between the two sit a few decisions that are not the machine's but are the same
on every runtime; they live here, pure (no IO, nothing but the core), so that each is made once:

- `review_points`: the questions a step is reviewed with before its events go out (original-notes
  sections 7 and 8): the output guardrails on a final answer, `OnHandoff` before a handoff,
  `OnTurnStart` before each `TurnStarted`. The interpreter asks them in order; the first refused
  one ends the run with `refused`, which keeps the events before the refused point;
- `failed_step`: the step that ends a run in a state with a failure (recorded as a `Failed` boundary);
- `ending`: a terminal step's events split into those delivered and the terminal event;
- `model_step`: what a model call's answer feeds the machine next (a failed summary is skipped);
- `credited_model`: the model a call's usage is counted under;
- `problems_by_call`: why calls of an `ExecuteTools` / `AwaitApproval` cannot run, by call id;
- `decided_split` and `after_approval`: an approval phase runs the calls a human decided and keeps the
  others waiting, ahead of those the decided ones left waiting;
- `round_results`: a round's `ToolResults` from how each of its calls went (`CallDone`, `CallHeld`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TypeAlias, assert_never

import attrs

from .errors import OtherError
from .events import AgentEvent, ApprovalRequested, HandoffItem, RunCompleted, RunFailed, TerminalEvent, TurnStarted
from .items import ToolCall, ToolResult
from .model import ModelResponse
from .states import (
    CallModel,
    Compacting,
    Done,
    Failed,
    LoopState,
    PerformHandoff,
    SummaryFailed,
    Terminate,
    ToolResults,
    TransitionInput,
    TransitionOutcome,
)
from .usage import Usage

__all__ = [
    "AskHandoff",
    "AskTurnStart",
    "CallDone",
    "CallHeld",
    "CallOutcome",
    "CheckOutput",
    "ReviewPoint",
    "after_approval",
    "credited_model",
    "decided_split",
    "ending",
    "failed_step",
    "model_step",
    "problems_by_call",
    "refused",
    "review_points",
    "round_results",
]


@attrs.frozen
class CheckOutput:
    """Run the output guardrails on the final answer's `text`."""

    text: str


@attrs.frozen
class AskHandoff:
    """Fire `OnHandoff` for the handoff to `target`, before the handoff is observed."""

    target: str


@attrs.frozen
class AskTurnStart:
    """Fire `OnTurnStart` for `turn`, before the step's event at `index` (its `TurnStarted`) goes out."""

    turn: int
    index: int


ReviewPoint: TypeAlias = CheckOutput | AskHandoff | AskTurnStart
"""One question a step is reviewed with."""


def review_points(outcome: TransitionOutcome, *, output_guarded: bool, hooked: bool) -> tuple[ReviewPoint, ...]:
    """The questions `outcome` is reviewed with, in the order they are asked (none: it goes on unchanged).

    `output_guarded`: the run has output guardrails; `hooked`: it has hooks (the agent's or the run's).
    """
    points: list[ReviewPoint] = []
    state = outcome.next_state
    if output_guarded and type(state) is Done:
        points.append(CheckOutput(state.output.text))
    if hooked:
        action = outcome.next_action
        if type(action) is PerformHandoff:
            points.append(AskHandoff(action.target))
        elif type(action) is CallModel:
            points.extend(
                AskTurnStart(event.turn, index)
                for index, event in enumerate(outcome.events)
                if type(event) is TurnStarted
            )
    return tuple(points)


def refused(outcome: TransitionOutcome, point: ReviewPoint, end: tuple[AgentEvent, ...]) -> TransitionOutcome:
    """The step that replaces `outcome` when `point` was refused with `end` (events, the last a `RunFailed`).

    A tripped output guardrail replaces the step's events; a denied handoff keeps those before its
    `HandoffItem`; a denied turn start those before its `TurnStarted`.
    """
    events = outcome.events
    kept: tuple[AgentEvent, ...]
    if type(point) is CheckOutput:
        kept = ()
    elif type(point) is AskHandoff:
        cut = next((i for i, event in enumerate(events) if type(event) is HandoffItem), len(events))
        kept = events[:cut]
    else:
        assert type(point) is AskTurnStart
        kept = events[: point.index]
    return failed_step(outcome.next_state, (*kept, *end))


def failed_step(state: LoopState, events: tuple[AgentEvent, ...]) -> TransitionOutcome:
    """The step that ends a run in `state` with `events` (the last a `RunFailed`): state `Failed` (keeping
    the usage so far), no appends, `Terminate`."""
    last = events[-1]
    assert isinstance(last, RunFailed)
    usage = getattr(state, "usage", Usage())
    return TransitionOutcome(next_state=Failed(last.error, usage), events=events, next_action=Terminate())


_NO_TERMINAL = RunFailed(OtherError("internal error: the loop terminated without a terminal event"))


def ending(events: tuple[AgentEvent, ...]) -> tuple[tuple[AgentEvent, ...], TerminalEvent]:
    """A terminal step's `events` as the events delivered before its end, and the terminal event it ends with.

    A step that does not end with `RunCompleted` or `RunFailed` is an internal error: the run fails.
    """
    last = events[-1] if events else None
    if type(last) is RunCompleted or type(last) is RunFailed:
        return events[:-1], last
    return events[:-1], _NO_TERMINAL


def model_step(state: LoopState, answer: ModelResponse | RunFailed) -> TransitionInput | RunFailed:
    """What a model call's `answer` in `state` feeds the machine next, or the failure that ends the run.

    A summary that failed (from `Compacting`) is skipped with a warning: the run goes on without it.
    """
    if type(answer) is RunFailed:
        return SummaryFailed(answer.error) if type(state) is Compacting else answer
    return answer


def credited_model(answer: ModelResponse, default: str | None) -> str | None:
    """The model `answer`'s usage is counted under: the one that says it answered, else `default` (or
    `None` when neither names one)."""
    return answer.model or default or None


def problems_by_call(calls: tuple[ToolCall, ...], problems: tuple[str | None, ...]) -> dict[str, str]:
    """The problems of `calls` (`ExecuteTools.problems`, one per call or none), by call id; the calls
    that can run have none."""
    return {call.call_id: problem for call, problem in zip(calls, problems, strict=False) if problem is not None}


def decided_split(
    pending: tuple[ToolCall, ...], answered: Collection[str]
) -> tuple[tuple[ToolCall, ...], tuple[ToolCall, ...]]:
    """The waiting calls `pending` as those a human `answered` (by call id), which run now, and the
    others, which wait on; each in call order."""
    decided = tuple(call for call in pending if call.call_id in answered)
    undecided = tuple(call for call in pending if call.call_id not in answered)
    return decided, undecided


def after_approval(undecided: tuple[ToolCall, ...], ran: ToolResults) -> ToolResults:
    """What an approval phase feeds the machine: the results of the decided calls it `ran`, the calls
    still `undecided` waiting first, then those the run left waiting (asked again, or a sub-run's)."""
    return ToolResults(ran.results, undecided + ran.pending, ran.events)


@attrs.frozen
class CallDone:
    """The call is answered by `result`; `events` record its permission decision."""

    result: ToolResult
    events: tuple[AgentEvent, ...] = ()


@attrs.frozen
class CallHeld:
    """The call waits for a human; `requests` are what is asked (the call itself, or its sub-run's calls)."""

    call: ToolCall
    requests: tuple[ApprovalRequested, ...]


CallOutcome: TypeAlias = CallDone | CallHeld
"""How one call of a round went."""


def round_results(outcomes: tuple[CallOutcome, ...]) -> ToolResults:
    """The `ToolResults` of a round: answered calls' results, held calls as pending, the decisions' events."""
    results: list[ToolResult] = []
    pending: list[ToolCall] = []
    events: list[AgentEvent] = []
    for outcome in outcomes:
        if type(outcome) is CallDone:  # the common case first (an exact `CallDone` can match no other case)
            results.append(outcome.result)
            if outcome.events:
                events.extend(outcome.events)
            continue
        match outcome:
            case CallDone(result=result, events=more):
                results.append(result)
                events.extend(more)
            case CallHeld(call=call):
                pending.append(call)
            case _:
                assert_never(outcome)
    return ToolResults(tuple(results), tuple(pending), tuple(events))
