"""`plan_compaction`'s decision, by example (the laws over random logs are `properties/test_compaction.py`).

Rules (original-notes, CompactingSession): "compact only if tokens > threshold and projection is neither empty nor
a lone System": a view of exactly the budget stays; the last turn is always kept; a view that is the previous
summary and the last turn has nothing left to compact, while a blank (skipped) summary is not a summary.
"""

from __future__ import annotations

from helikon_fc.core import AssistantMessage, Compacted, Conversation, Reasoning, ToolCall, ToolResult, UserMessage
from helikon_fc.core.compaction import (
    CompactionPlan,
    CompactionPolicy,
    estimate_tokens,
    last_turn_start,
    plan_compaction,
)

OLD = UserMessage("a" * 80)
ANSWER = AssistantMessage("b" * 80, "assistant")
QUESTION = UserMessage("q" * 80)


def policy(max_tokens: int) -> CompactionPolicy:
    return CompactionPolicy(max_tokens=max_tokens, summary_tokens=5)


def test_a_view_of_exactly_the_budget_is_not_compacted() -> None:
    log = Conversation([UserMessage("a" * 20), AssistantMessage("b" * 20, "assistant")])
    assert estimate_tokens(log) == 10
    assert plan_compaction(log, policy(10)) is None
    assert plan_compaction(log, policy(9)) == CompactionPlan(summarised=(log[0],), kept=1, tokens=10)


def test_everything_before_the_last_turn_is_summarised() -> None:
    log = Conversation([OLD, ANSWER])
    assert plan_compaction(log, policy(10)) == CompactionPlan(summarised=(OLD,), kept=1, tokens=40)


def test_the_previous_summary_and_the_last_turn_leave_nothing_to_compact() -> None:
    log = Conversation([OLD, Compacted("what was said", 0), QUESTION])
    assert plan_compaction(log, policy(10)) is None


def test_a_blank_summary_is_not_a_summary_to_keep() -> None:
    log = Conversation([OLD, Compacted("", 1), ANSWER, QUESTION])
    assert plan_compaction(log, policy(10)) == CompactionPlan(summarised=(OLD,), kept=2, tokens=60)


def test_a_turn_after_the_previous_summary_is_summarised_with_it() -> None:
    log = Conversation([OLD, Compacted("what was said", 0), QUESTION, ANSWER])
    plan = plan_compaction(log, policy(10))
    assert plan is not None
    assert plan.summarised[1:] == (QUESTION,)
    assert plan.kept == 1


def test_the_last_turn_starts_at_the_last_model_response() -> None:
    """Rule: the last turn is kept whole: from the first item of the last model response (its reasoning, text
    and calls) to the end (its tool results, a repair prompt); without a response, the last item alone; and it
    starts earlier while a tool call and its result would be split."""
    call, result = ToolCall("c", "f", "{}"), ToolResult("c", "out")
    reply = AssistantMessage("a", "assistant")
    turn = (Reasoning("r"), reply, call, result, UserMessage("fix"))
    assert last_turn_start((UserMessage("u"), *turn)) == 1
    assert last_turn_start((UserMessage("u"), UserMessage("v"))) == 1
    assert last_turn_start(()) == 0
    assert last_turn_start((UserMessage("u"),)) == 0
    assert last_turn_start((reply, UserMessage("u"))) == 0
    assert last_turn_start((call, UserMessage("u"), reply, result)) == 0
    other, answer = ToolCall("d", "f", "{}"), ToolResult("d", "out")
    assert last_turn_start((call, other, result, UserMessage("u"), reply, answer)) == 0  # moved twice
    assert last_turn_start((UserMessage("u"), reply, UserMessage("v"), reply)) == 3
