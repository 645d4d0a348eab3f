"""Laws of compaction: the decision and the splice are pure and total; the model never sees more than the
budget plus one turn; the stored log loses nothing; consecutive compactions chain; a tool call and its result
are never split; a skipped compaction changes nothing the model sees."""

from __future__ import annotations

from typing import assert_never

import attrs
from hypothesis import given, strategies as st
from properties.reference import Answer, drive, make_ctx, ok_result
from properties.strategies import (
    compaction_policies,
    conversations,
    items,
    scenario_ctxs,
    scripts,
    texts,
    tool_calling_scripts,
)

from helikon_fc.core import (
    AwaitApproval,
    CallModel,
    Compacted,
    Compacting,
    CompactionPolicy,
    Conversation,
    ExecuteTools,
    Item,
    ModelFailed,
    ModelFailureKind,
    ModelRequest,
    ModelResponse,
    PerformHandoff,
    Start,
    SummaryFailed,
    Terminate,
    ToolCall,
    ToolResult,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    UserMessage,
    estimate_tokens,
    initial_state,
    last_turn_start,
    plan_compaction,
    skipped_marker,
    splice,
    transition,
    visible,
)

LOGS = conversations(items()).flatmap(lambda c: st.lists(items(), max_size=12).map(c.extend))


@attrs.frozen
class Run:
    """A run driven through `transition`: the model's requests (summaries apart) and the final log."""

    requests: tuple[ModelRequest, ...]
    summary_requests: tuple[ModelRequest, ...]
    log: Conversation


def _run(ctx: TransitionCtx, script: tuple[ModelResponse, ...], summaries: tuple[str | None, ...]) -> Run:
    """Drive `ctx` with `script` for the model; summary calls answer from `summaries` (`None`: the call fails)."""
    state, given_input, log = initial_state(), Start(), ctx.conversation
    step: TransitionInput = given_input
    requests: list[ModelRequest] = []
    summary_requests: list[ModelRequest] = []
    for _ in range(200):
        outcome = transition(state, step, attrs.evolve(ctx, conversation=log))
        log = log.extend(outcome.conversation_appends)
        state = outcome.next_state
        match outcome.next_action:
            case CallModel(request=request):
                if isinstance(state, Compacting):
                    summary = summaries[len(summary_requests) % len(summaries)] if summaries else None
                    summary_requests.append(request)
                    step = SummaryFailed(_FAILURE) if summary is None else ModelResponse(text=summary)
                else:
                    requests.append(request)
                    step = script[len(requests) - 1] if len(requests) <= len(script) else ModelResponse(text="done")
            case ExecuteTools(calls=calls) | AwaitApproval(pending=calls):  # approvals: every call answered
                step = ToolResults(tuple(ok_result(call) for call in calls))
            case PerformHandoff() | Terminate():
                break
            case _:
                assert_never(outcome.next_action)
    return Run(tuple(requests), tuple(summary_requests), log)


_FAILURE = ModelFailed(ModelFailureKind.UNAVAILABLE, "503")

SCRIPTS = st.integers(min_value=1, max_value=8).flatmap(tool_calling_scripts)
SUMMARIES = st.lists(st.none() | texts(), min_size=1, max_size=4).map(tuple)
GOOD_SUMMARIES = st.lists(texts().map(lambda text: "s " + text), min_size=1, max_size=4).map(tuple)


def _world(policy: CompactionPolicy) -> TransitionCtx:
    return attrs.evolve(make_ctx(max_turns=12, conversation=Conversation([UserMessage("go")])), compaction=policy)


def _without_markers(log: Conversation) -> list[Item]:
    return [item for item in log if not isinstance(item, Compacted)]


@given(log=LOGS, policy=compaction_policies())
def test_the_decision_and_the_view_are_pure_and_total(log: Conversation, policy: CompactionPolicy) -> None:
    """For any log, markers anywhere, `visible` and `plan_compaction` return (never raise), twice the same,
    leaving the log as it was; the view holds no marker."""
    before = list(log)
    assert visible(log) == visible(log)
    assert plan_compaction(log, policy) == plan_compaction(log, policy)
    assert list(log) == before
    assert not any(isinstance(item, Compacted) for item in visible(log))


@given(log=LOGS, policy=compaction_policies(), summary=texts())
def test_the_splice_replaces_exactly_the_planned_items(
    log: Conversation, policy: CompactionPolicy, summary: str
) -> None:
    """After a splice the model sees one summary (within its budget) and then the items the plan kept, unchanged."""
    plan = plan_compaction(log, policy)
    if plan is None:
        return
    view = visible(log)
    marker = splice(plan, summary, policy)
    if marker is None:
        assert not summary.strip()
        return
    after = visible(log.extend((marker,)))
    assert after[1:] == view[len(plan.summarised) :]
    assert estimate_tokens(after[:1]) <= policy.summary_tokens
    assert view[: len(plan.summarised)] == plan.summarised


@given(log=LOGS)
def test_a_skipped_compaction_changes_nothing_the_model_sees(log: Conversation) -> None:
    """The marker of a skip leaves the view exactly as it was."""
    assert visible(log.extend((skipped_marker(log),))) == visible(log)


@given(script=SCRIPTS, policy=compaction_policies(120), summaries=GOOD_SUMMARIES)
def test_the_model_never_sees_more_than_the_budget_plus_one_turn(
    script: tuple[ModelResponse, ...], policy: CompactionPolicy, summaries: tuple[str, ...]
) -> None:
    """When every summary comes back, each request the model gets holds at most `max_tokens` plus its last turn."""
    run = _run(_world(policy), script, summaries)
    for request in run.requests:
        shown = tuple(request.items)
        assert estimate_tokens(shown) <= policy.max_tokens + estimate_tokens(shown[last_turn_start(shown) :])


@given(script=SCRIPTS, policy=compaction_policies(120), summaries=SUMMARIES)
def test_nothing_is_lost_from_the_stored_log(
    script: tuple[ModelResponse, ...], policy: CompactionPolicy, summaries: tuple[str | None, ...]
) -> None:
    """The log of a compacting run, markers aside, is the log of the same run without compaction."""
    compacted = _run(_world(policy), script, summaries)
    plain = _run(attrs.evolve(_world(policy), compaction=None), script, ())
    assert _without_markers(compacted.log) == list(plain.log)


@given(script=SCRIPTS, policy=compaction_policies(120), summaries=GOOD_SUMMARIES)
def test_consecutive_compactions_chain(
    script: tuple[ModelResponse, ...], policy: CompactionPolicy, summaries: tuple[str, ...]
) -> None:
    """Each summary request after the first holds the previous summary: a later summary covers the earlier one."""
    run = _run(_world(policy), script, summaries)
    markers = [item for item in run.log if isinstance(item, Compacted) and item.summary.strip()]
    for previous, request in zip(markers, run.summary_requests[1:], strict=False):
        prompt = request.items[-1]
        assert isinstance(prompt, UserMessage) and previous.summary in prompt.text


@given(script=SCRIPTS, policy=compaction_policies(120), summaries=SUMMARIES)
def test_a_tool_call_and_its_result_are_never_split(
    script: tuple[ModelResponse, ...], policy: CompactionPolicy, summaries: tuple[str | None, ...]
) -> None:
    """In every request the model gets, each tool result follows its call, and each call before the last
    response has its result."""
    run = _run(_world(policy), script, summaries)
    for request in run.requests:
        shown = tuple(request.items)
        calls = [item.call_id for item in shown if isinstance(item, ToolCall)]
        results = [item.call_id for item in shown if isinstance(item, ToolResult)]
        assert sorted(calls) == sorted(results)
        for index, item in enumerate(shown):
            if isinstance(item, ToolResult):
                assert any(isinstance(c, ToolCall) and c.call_id == item.call_id for c in shown[:index])


@given(ctx=scenario_ctxs(), script=scripts())
def test_start_resumes_through_every_compacting_boundary(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """Stored in `Compacting` (or just after it), `Start` on the state asks for the same model call again.

    (`properties/test_resume.py` states the law for every boundary; its contexts compact too.)
    """
    trace = drive(ctx, script)
    for step in trace.steps:
        stored = step.outcome.next_state
        after_marker = bool(step.outcome.conversation_appends) and isinstance(
            step.outcome.conversation_appends[-1], Compacted
        )
        if not (isinstance(stored, Compacting) or after_marker):
            continue
        conversation = step.conversation.extend(step.outcome.conversation_appends)
        resumed = transition(stored, Start(), attrs.evolve(ctx, conversation=conversation))
        assert resumed.next_state == stored
        assert resumed.next_action == step.outcome.next_action
