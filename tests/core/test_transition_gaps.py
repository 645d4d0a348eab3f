"""Rules of `transition` that mutation testing found unchecked (`nox -s mutants`, docs/contributing.md).

Each test names the rule it checks and would fail against the mutant that survived without it.
"""

from __future__ import annotations

import attrs
import pytest
from properties.reference import ANSWER, BILLING, make_ctx

from helikon_fc.core import (
    ApplyingHandoff,
    AssistantMessage,
    CallingModel,
    CallModel,
    Compacted,
    Compacting,
    Conversation,
    ConversationCompacted,
    Failed,
    Finalizing,
    InvalidTransition,
    LoopState,
    ModelResponse,
    NeedsApproval,
    Reasoning,
    RepairingOutput,
    RunFailed,
    Start,
    StructuredOutputInvalid,
    Terminate,
    ToolCall,
    ToolResult,
    ToolResults,
    Usage,
    UserMessage,
    transition,
)
from helikon_fc.core.compaction import CompactionPolicy, ResumePhase, plan_compaction, summary_request

CALL_A = ToolCall("a", "get_weather", '{"city": "Oslo"}')


def test_a_response_is_logged_as_reasoning_then_text_then_calls() -> None:
    """python-surface: a model "answers with text, tool calls, reasoning"; the conversation keeps all three, as
    `Reasoning(text)`, the `AssistantMessage` and the calls, in that order (the reasoning is not dropped)."""
    response = ModelResponse(text="hi", reasoning="think", tool_calls=(CALL_A,))
    outcome = transition(CallingModel(0), response, make_ctx())
    assert outcome.conversation_appends == (Reasoning("think"), AssistantMessage("hi", "assistant"), CALL_A)
    answer = transition(CallingModel(0), ModelResponse(text="hi", reasoning="think"), make_ctx())
    assert answer.conversation_appends == (Reasoning("think"), AssistantMessage("hi", "assistant"))


def test_answers_to_approvals_for_other_calls_fail_the_step() -> None:
    """Rule: "Impossible (state, input) pairs return a `Failed` outcome": `NeedsApproval` accepts only the answers
    to the calls it waits for; a result for another call fails with the reason, keeping the usage so far."""
    state = NeedsApproval((CALL_A,), 1, Usage(requests=1), (CALL_A,), ())
    outcome = transition(state, ToolResults((ToolResult("b", "x"),)), make_ctx())
    error = InvalidTransition("NeedsApproval", "ToolResults", "tool results answer ['b'], expected exactly ['a']")
    assert outcome.next_state == Failed(error, Usage(requests=1))
    assert outcome.events == (RunFailed(error),)
    assert outcome.next_action == Terminate()
    assert outcome.conversation_appends == ()


def test_a_structured_turn_without_a_schema_is_repaired_then_fails() -> None:
    """Rule: "Impossible (state, input) pairs return a `Failed` outcome; they never raise": a `Finalizing` or
    `RepairingOutput` state stepped in a context without an output schema (the context changed between steps)
    never completes; it asks for a repair once, naming the reason, then fails with it."""
    reason = "no output schema is configured for the structured-output turn"
    repairing = transition(Finalizing(1), ModelResponse(text="x"), make_ctx())
    assert repairing.next_state == RepairingOutput(1, Usage(requests=1))
    prompt = repairing.conversation_appends[-1]
    assert isinstance(prompt, UserMessage) and reason in prompt.text
    failed = transition(RepairingOutput(1), ModelResponse(text="x"), make_ctx())
    assert failed.next_state == Failed(StructuredOutputInvalid((reason,), "x"), Usage(requests=1))


def test_start_on_compacting_asks_for_the_summary_while_the_view_is_over_budget() -> None:
    """Rule (compaction, resume): stored in `Compacting`, `Start` asks for the same summary again when the view
    the model would see still passes the budget; it stays in `Compacting` and emits nothing."""
    conversation = Conversation(
        [UserMessage("hello " * 50), AssistantMessage("sure " * 50, "assistant"), UserMessage("next")]
    )
    policy = CompactionPolicy(max_tokens=20, summary_tokens=10)
    ctx = attrs.evolve(make_ctx(conversation=conversation), compaction=policy)
    plan = plan_compaction(conversation, policy)
    assert plan is not None
    outcome = transition(Compacting(1), Start(), ctx)
    assert outcome.next_state == Compacting(1)
    assert outcome.next_action == CallModel(summary_request(plan, policy))
    assert outcome.events == ()


def test_start_on_compacting_within_the_budget_resumes_the_interrupted_phase() -> None:
    """Rule (compaction, resume): with a budget the view now fits (nothing left to compact), `Start` on a stored
    `Compacting` makes the model call of the phase it interrupted, without a summary call."""
    policy = CompactionPolicy(max_tokens=10_000, summary_tokens=10)
    ctx = attrs.evolve(make_ctx(), compaction=policy)
    outcome = transition(Compacting(1), Start(), ctx)
    assert outcome.next_state == CallingModel(1)
    assert isinstance(outcome.next_action, CallModel)
    assert outcome.next_action.request.tools == ctx.tools


def test_a_summary_that_arrives_when_the_view_fits_is_dropped_and_counted() -> None:
    """Rule (compaction): a summary answer to a `Compacting` state whose view fits the budget by now (the budget
    changed) is not spliced in; the run makes the interrupted model call, and the summary call is still counted."""
    ctx = attrs.evolve(make_ctx(), compaction=CompactionPolicy(max_tokens=10_000, summary_tokens=10))
    outcome = transition(Compacting(1), ModelResponse(text="a summary"), ctx)
    assert outcome.next_state == CallingModel(1, Usage(requests=1))
    assert outcome.conversation_appends == ()
    assert outcome.events == ()


def test_a_summary_over_budget_is_spliced_in_and_reported() -> None:
    """Rule (compaction): the summary answer to a `Compacting` state is appended as a `Compacted` marker, reported
    by `ConversationCompacted`, and the interrupted model call is made over the compacted view."""
    conversation = Conversation(
        [UserMessage("hello " * 50), AssistantMessage("sure " * 50, "assistant"), UserMessage("next")]
    )
    ctx = attrs.evolve(
        make_ctx(conversation=conversation), compaction=CompactionPolicy(max_tokens=20, summary_tokens=10)
    )
    outcome = transition(Compacting(1), ModelResponse(text="hi"), ctx)
    assert outcome.next_state == CallingModel(1, Usage(requests=1))
    (marker,) = outcome.conversation_appends
    assert isinstance(marker, Compacted) and marker.summary == "hi"
    (event,) = outcome.events
    assert isinstance(event, ConversationCompacted) and event.summary == "hi"


@pytest.mark.parametrize(
    ("phase", "resumed"),
    [
        (ResumePhase.CALLING_MODEL, CallingModel(2)),
        (ResumePhase.FINALIZING, Finalizing(2)),
        (ResumePhase.REPAIRING_OUTPUT, RepairingOutput(2)),
    ],
)
def test_compaction_goes_back_to_the_phase_it_interrupted(phase: ResumePhase, resumed: LoopState) -> None:
    """Rule (compaction): once done (here: nothing left to compact), `Compacting` goes back to the phase it
    interrupted and makes that phase's model call: the tool loop's with tools, a structured turn's with the
    output schema and no tools."""
    ctx = attrs.evolve(
        make_ctx(output_schema=ANSWER), compaction=CompactionPolicy(max_tokens=10_000, summary_tokens=10)
    )
    outcome = transition(Compacting(2, Usage(), phase), Start(), ctx)
    assert outcome.next_state == resumed
    assert isinstance(outcome.next_action, CallModel)
    request = outcome.next_action.request
    structured = phase is not ResumePhase.CALLING_MODEL
    assert request.output_schema == (ANSWER if structured else None)
    assert request.tools == (() if structured else ctx.tools)


def test_a_handoff_that_reaches_max_agent_depth_exactly_is_applied() -> None:
    """Rule: a handoff deeper than `max_agent_depth` fails; one that reaches it exactly (depth 2 of 2) is applied."""
    ctx = make_ctx(handoffs=(BILLING,), agent_depth=1, max_agent_depth=2)
    response = ModelResponse(tool_calls=(ToolCall("h", "transfer_to_billing", "{}"),))
    outcome = transition(CallingModel(0), response, ctx)
    assert isinstance(outcome.next_state, ApplyingHandoff)
    assert outcome.next_state.target == "billing"
