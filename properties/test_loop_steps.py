"""Laws of the decisions every interpreter of the model loop shares (`helikon_fc.core.loop_steps`).

- review: a step is asked exactly the questions its run configures and its content calls for, in event
  order; a refusal ends the run as a `Failed` step that keeps the events before the refused point, the
  usage so far, and appends nothing;
- ending: a terminal step's events are the delivered ones then the terminal; a step without a terminal
  ends the run as an internal failure;
- model answers: an answer feeds the machine unchanged, a failed call ends the run, except a failed
  summary, which is skipped; usage is credited to the model that says it answered, else the default;
- approvals: the decided calls and the undecided ones partition the waiting calls, in call order; the
  phase's results are those of the decided calls, the undecided still waiting ahead of the rest;
- problems: one per call that has one, under its id;
- a round's results: the answered calls' results and the held calls as pending, each in call order, and
  the answered calls' events in call order (a held call's questions are not the round's events).
"""

from __future__ import annotations

import attrs
from hypothesis import given, strategies as st
from properties.strategies import (
    agent_errors,
    agent_events,
    conversations,
    items,
    loop_states,
    model_requests,
    model_responses,
    names,
    next_actions,
    texts,
    tool_calls,
    tool_results,
)

from helikon_fc.core import (
    AgentError,
    AgentEvent,
    ApprovalRequested,
    CallModel,
    Compacting,
    Conversation,
    Done,
    Failed,
    GuardrailTriggered,
    HandoffItem,
    LoopState,
    ModelResponse,
    OtherError,
    PerformHandoff,
    RunCompleted,
    RunFailed,
    SummaryFailed,
    Terminate,
    ToolCall,
    ToolResults,
    TransitionOutcome,
    TurnStarted,
    Usage,
)
from helikon_fc.core.loop_steps import (
    AskHandoff,
    AskTurnStart,
    CallDone,
    CallHeld,
    CallOutcome,
    CheckOutput,
    ReviewPoint,
    after_approval,
    credited_model,
    decided_split,
    ending,
    failed_step,
    model_step,
    problems_by_call,
    refused,
    review_points,
    round_results,
)

EVENTS = st.lists(
    agent_events() | st.builds(TurnStarted, st.integers(1, 9)) | st.builds(HandoffItem, names(), names()),
    max_size=6,
).map(tuple)
OUTCOMES = st.builds(TransitionOutcome, loop_states(), EVENTS, next_actions(), st.lists(items(), max_size=2).map(tuple))
ENDS = st.tuples(st.lists(st.builds(GuardrailTriggered, names(), texts()), max_size=1), agent_errors()).map(
    lambda pair: (*pair[0], RunFailed(pair[1]))
)


def _usage(state: LoopState) -> Usage:
    usage: Usage = getattr(state, "usage", Usage())
    return usage


@given(outcome=OUTCOMES, guarded=st.booleans(), hooked=st.booleans())
def test_review_asks_what_the_run_configures_and_the_step_calls_for(
    outcome: TransitionOutcome, guarded: bool, hooked: bool
) -> None:
    """Output guardrails on a final answer first; then, hooked, `OnHandoff` for a handoff or one
    `OnTurnStart` per `TurnStarted` of a step that calls the model, in event order; nothing else."""
    points = review_points(outcome, output_guarded=guarded, hooked=hooked)
    state, action = outcome.next_state, outcome.next_action
    expected: list[ReviewPoint] = []
    if guarded and isinstance(state, Done):
        expected.append(CheckOutput(state.output.text))
    if hooked and isinstance(action, PerformHandoff):
        expected.append(AskHandoff(action.target))
    if hooked and isinstance(action, CallModel):
        turns = [(i, e) for i, e in enumerate(outcome.events) if isinstance(e, TurnStarted)]
        expected.extend(AskTurnStart(event.turn, index) for index, event in turns)
    assert points == tuple(expected)


@given(outcome=OUTCOMES, target=names(), transcript=conversations(), guarded=st.booleans())
def test_a_hooked_handoff_is_asked_once_for_its_target(
    outcome: TransitionOutcome, target: str, transcript: Conversation, guarded: bool
) -> None:
    """A step that hands off asks `OnHandoff` for its target exactly once when hooked, never when not."""
    handing = attrs.evolve(outcome, next_action=PerformHandoff(target, transcript))
    asked = [p for p in review_points(handing, output_guarded=guarded, hooked=True) if isinstance(p, AskHandoff)]
    assert asked == [AskHandoff(target)]
    assert not any(isinstance(p, AskHandoff) for p in review_points(handing, output_guarded=guarded, hooked=False))


@given(outcome=OUTCOMES, turns=st.lists(st.integers(1, 9), min_size=1, max_size=3), data=st.data())
def test_a_hooked_model_call_asks_on_turn_start_once_per_turn_started_at_its_index(
    outcome: TransitionOutcome, turns: list[int], data: st.DataObject
) -> None:
    """A hooked step that calls the model asks `OnTurnStart` for each of its `TurnStarted` events, with
    that event's turn and position, in event order, whatever else the step carries."""
    events = list(outcome.events)
    for turn in turns:
        events.insert(data.draw(st.integers(0, len(events))), TurnStarted(turn))
    request = data.draw(model_requests())
    calling = attrs.evolve(outcome, events=tuple(events), next_action=CallModel(request))
    asked = [p for p in review_points(calling, output_guarded=False, hooked=True) if isinstance(p, AskTurnStart)]
    expected = [AskTurnStart(e.turn, i) for i, e in enumerate(events) if isinstance(e, TurnStarted)]
    assert asked == expected
    assert len(asked) >= len(turns)


@given(outcome=OUTCOMES)
def test_an_unconfigured_run_is_never_reviewed(outcome: TransitionOutcome) -> None:
    """Without guardrails or hooks, no step is asked anything (the interpreter goes on unchanged)."""
    assert review_points(outcome, output_guarded=False, hooked=False) == ()


@given(outcome=OUTCOMES, guarded=st.booleans(), end=ENDS, data=st.data())
def test_a_refusal_keeps_what_came_before_the_refused_point(
    outcome: TransitionOutcome, guarded: bool, end: tuple[AgentEvent, ...], data: st.DataObject
) -> None:
    """A refused point ends the run: `Failed` with the refusal's error and the usage so far, the events
    before the point (none for a tripped output guardrail, up to the `HandoffItem` for a handoff, up to
    the `TurnStarted` for a turn) then the refusal's, `Terminate`, no appends."""
    points = review_points(outcome, output_guarded=guarded, hooked=True)
    others: list[ReviewPoint] = [CheckOutput("x"), AskHandoff("t"), AskTurnStart(1, len(outcome.events))]
    point: ReviewPoint = data.draw(st.sampled_from(points or tuple(others)))
    step = refused(outcome, point, end)
    last = end[-1]
    assert isinstance(last, RunFailed)
    assert step.next_state == Failed(last.error, _usage(outcome.next_state))
    assert isinstance(step.next_action, Terminate)
    assert step.conversation_appends == ()
    kept = step.events[: len(step.events) - len(end)]
    assert step.events[len(kept) :] == end
    assert outcome.events[: len(kept)] == kept
    if isinstance(point, CheckOutput):
        assert kept == ()
    elif isinstance(point, AskHandoff):
        assert not any(isinstance(event, HandoffItem) for event in kept)
        assert len(kept) == len(outcome.events) or isinstance(outcome.events[len(kept)], HandoffItem)
    else:
        assert len(kept) == min(point.index, len(outcome.events))


@given(state=loop_states(), events=EVENTS, error=agent_errors())
def test_a_failed_step_keeps_the_usage_so_far(
    state: LoopState, events: tuple[AgentEvent, ...], error: AgentError
) -> None:
    """`failed_step` ends in `Failed` with the last event's error and the state's usage, its events unchanged."""
    failure = RunFailed(error)
    step = failed_step(state, (*events, failure))
    assert step.next_state == Failed(failure.error, _usage(state))
    assert step.events == (*events, failure)
    assert isinstance(step.next_action, Terminate)


@given(events=EVENTS)
def test_ending_splits_delivered_and_terminal(events: tuple[AgentEvent, ...]) -> None:
    """The delivered events are all but the last; the terminal is the last when it is one, else an
    internal `RunFailed` (nothing is lost or reordered)."""
    delivered, terminal = ending(events)
    assert delivered == events[:-1]
    if events and isinstance(events[-1], RunCompleted | RunFailed):
        assert terminal is events[-1]
    else:
        assert isinstance(terminal, RunFailed)
        assert isinstance(terminal.error, OtherError)


@given(state=loop_states(), answer=model_responses() | st.builds(RunFailed, agent_errors()))
def test_a_model_answer_feeds_the_machine_and_only_a_summary_failure_is_skipped(
    state: LoopState, answer: ModelResponse | RunFailed
) -> None:
    """A response is the next input as is; a failure ends the run, except from `Compacting`, where it is
    the `SummaryFailed` input carrying the same error."""
    fed = model_step(state, answer)
    if isinstance(answer, ModelResponse):
        assert fed is answer
    elif isinstance(state, Compacting):
        assert fed == SummaryFailed(answer.error)
    else:
        assert fed is answer


@given(answer=model_responses(), model=st.none() | st.just("") | names(), default=st.none() | st.just("") | names())
def test_usage_is_credited_to_the_model_that_answered(
    answer: ModelResponse, model: str | None, default: str | None
) -> None:
    """The answer's own model when it names one, else the default when it names one, else `None` (never "")."""
    answer = ModelResponse(
        text=answer.text,
        reasoning=answer.reasoning,
        tool_calls=answer.tool_calls,
        usage=answer.usage,
        finish_reason=answer.finish_reason,
        model=model,
    )
    credited = credited_model(answer, default)
    assert credited == (model or default or None)
    assert credited != ""
    if model:
        assert credited == model


CALLS = st.lists(tool_calls(), max_size=5, unique_by=lambda call: call.call_id).map(tuple)


@given(pending=CALLS, data=st.data())
def test_decided_and_undecided_partition_the_waiting_calls(pending: tuple[ToolCall, ...], data: st.DataObject) -> None:
    """Every waiting call is decided (answered) or undecided, never both, each side in call order."""
    ids = [call.call_id for call in pending]
    answered: set[str] = data.draw(st.sets(st.sampled_from(ids)) if ids else st.just(set()))
    answered |= set(data.draw(st.lists(names(), max_size=2)))  # answers for calls not waiting here change nothing
    decided, undecided = decided_split(pending, answered)
    assert all(call.call_id in answered for call in decided)
    assert not any(call.call_id in answered for call in undecided)
    assert sorted(decided + undecided, key=pending.index) == list(pending)
    assert list(decided) == sorted(decided, key=pending.index)
    assert list(undecided) == sorted(undecided, key=pending.index)


@given(
    undecided=CALLS,
    results=st.lists(tool_results(), max_size=3).map(tuple),
    left=CALLS,
    events=st.lists(agent_events(), max_size=2).map(tuple),
)
def test_an_approval_phase_keeps_the_undecided_waiting_first(
    undecided: tuple[ToolCall, ...],
    results: tuple[object, ...],
    left: tuple[ToolCall, ...],
    events: tuple[AgentEvent, ...],
) -> None:
    """The phase feeds the decided calls' results and events unchanged; what still waits is the
    undecided calls, then those the decided ones left waiting."""
    ran = ToolResults(results, left, events)  # type: ignore[arg-type]
    fed = after_approval(undecided, ran)
    assert fed.results == results
    assert fed.events == events
    assert fed.pending == undecided + left


@given(calls=CALLS, data=st.data())
def test_problems_are_keyed_by_the_calls_that_have_one(calls: tuple[ToolCall, ...], data: st.DataObject) -> None:
    """One entry per call with a problem (`None`: it can run), under its id; a shorter list leaves the rest without."""
    problems = tuple(data.draw(st.lists(st.none() | texts(), max_size=len(calls))))
    found = problems_by_call(calls, problems)
    with_problems = [index for index, problem in enumerate(problems) if problem is not None]
    assert len(found) == len(with_problems)
    for index in with_problems:
        assert found[calls[index].call_id] == problems[index]


OUTCOMES_OF_CALLS = st.lists(
    st.builds(CallDone, tool_results(), st.lists(agent_events(), max_size=2).map(tuple))
    | st.builds(
        CallHeld, tool_calls(), st.lists(st.builds(ApprovalRequested, names(), names(), texts()), max_size=2).map(tuple)
    ),
    max_size=6,
).map(tuple)


@given(outcomes=OUTCOMES_OF_CALLS)
def test_a_rounds_results_keep_call_order_and_only_the_answered_calls_events(
    outcomes: tuple[CallOutcome, ...],
) -> None:
    ran = round_results(outcomes)
    assert ran.results == tuple(o.result for o in outcomes if isinstance(o, CallDone))
    assert ran.pending == tuple(o.call for o in outcomes if isinstance(o, CallHeld))
    assert ran.events == tuple(e for o in outcomes if isinstance(o, CallDone) for e in o.events)
