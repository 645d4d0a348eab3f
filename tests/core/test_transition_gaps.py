"""Rules of `transition` that mutation testing found unchecked (`nox -s mutants`, docs/contributing.md).

Each test names the rule it checks and would fail against the mutant that survived without it.
"""

from __future__ import annotations

from properties.reference import make_ctx

from helikon_fc.core import (
    AssistantMessage,
    CallingModel,
    Failed,
    Finalizing,
    InvalidTransition,
    ModelResponse,
    NeedsApproval,
    Reasoning,
    RepairingOutput,
    RunFailed,
    StructuredOutputInvalid,
    Terminate,
    ToolCall,
    ToolResult,
    ToolResults,
    Usage,
    UserMessage,
    transition,
)

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
