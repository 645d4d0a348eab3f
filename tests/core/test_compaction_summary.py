"""The summary side of compaction, by example: the request, the splice, the skipped marker, the kept suffix.

Rules (module docstring of `core.compaction`): the summary request is "the replaced items as a transcript, no
tools"; `splice` cuts the summary "to ``policy.summary_tokens``" and a blank summary is no marker; a skipped
compaction "leaves the view as it was" (the previous summary kept, every item in view kept); and a marker's `kept`
counts log items, markers among them included, back from the end until enough items in view are covered.
"""

from __future__ import annotations

from helikon_fc.core import (
    AssistantMessage,
    Compacted,
    Conversation,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolResult,
    UserMessage,
)
from helikon_fc.core.compaction import (
    SUMMARY_PREFIX,
    CompactionPlan,
    CompactionPolicy,
    plan_compaction,
    rebase,
    skipped_marker,
    splice,
    summary_request,
    visible,
)

POLICY = CompactionPolicy(max_tokens=10, summary_tokens=12, instructions="squeeze")


def test_the_summary_request_is_a_transcript_of_the_replaced_items() -> None:
    """Each kind of item has its line; the request has the policy's instructions and output cap, and no tools."""
    items = (
        SystemMessage("be brief"),
        UserMessage("hi"),
        AssistantMessage("hello", "helper"),
        AssistantMessage("plain", ""),
        Reasoning("thinking"),
        ToolCall("c1", "add", '{"a": 1}'),
        ToolResult("c1", "2"),
        ToolResult("c2", "boom", is_error=True),
        Compacted("earlier", 0),
    )
    request = summary_request(CompactionPlan(summarised=items, kept=0, tokens=99), POLICY)
    assert request.instructions == "squeeze"
    assert request.settings.max_output_tokens == 12
    assert request.tools == ()
    assert list(request.items) == [
        UserMessage(
            "Summarise this conversation:\n\n"
            "[system] be brief\n"
            "[user] hi\n"
            "[assistant helper] hello\n"
            "[assistant] plain\n"
            "[reasoning] thinking\n"
            '[tool call c1] add({"a": 1})\n'
            "[tool result c1] 2\n"
            "[tool error c2] boom\n"
            "[summary] earlier"
        )
    ]


def test_splice_cuts_the_summary_to_its_budget_and_refuses_a_blank_one() -> None:
    """The system message a summary becomes holds at most ``summary_tokens * 4`` characters, prefix included."""
    plan = CompactionPlan(summarised=(UserMessage("x"),), kept=3, tokens=99)
    room = 12 * 4 - len(SUMMARY_PREFIX)
    assert room == 12
    assert splice(plan, "  " + "s" * 30 + "  ", POLICY) == Compacted("s" * room, 3)
    assert splice(plan, "short", POLICY) == Compacted("short", 3)
    assert splice(plan, "   ", POLICY) is None
    tiny = CompactionPolicy(max_tokens=10, summary_tokens=1)
    assert splice(plan, "anything", tiny) is None  # no room at all: nothing but the prefix would fit


def test_a_skipped_compaction_keeps_the_previous_summary_and_the_whole_view() -> None:
    """The skipped marker repeats the previous summary and keeps every item in view, the markers among them."""
    old, question, answer = UserMessage("a" * 80), UserMessage("q"), AssistantMessage("b", "assistant")
    log = Conversation([old, Compacted("what was said", 0), question, answer])
    marker = skipped_marker(log)
    assert marker == Compacted("what was said", 2)  # the two items after the previous marker
    assert visible(log.extend((marker,))) == visible(log)
    bare = Conversation([old, question])
    assert skipped_marker(bare) == Compacted("", 2)
    blank = Conversation([old, Compacted("", 1), question])
    assert skipped_marker(blank) == Compacted("", 3)
    assert visible(blank.extend((skipped_marker(blank),))) == visible(blank)


def test_the_kept_count_skips_markers_between_kept_items() -> None:
    """`kept` counts back over the log until the planned number of view items is covered, markers included."""
    old, middle, question = UserMessage("a" * 80), UserMessage("u" * 40), UserMessage("v")
    reply = AssistantMessage("w" * 40, "assistant")
    log = Conversation([old, middle, reply, Compacted("", 2), question])
    plan = plan_compaction(log, CompactionPolicy(max_tokens=5, summary_tokens=2))
    assert plan == CompactionPlan(summarised=(middle,), kept=3, tokens=21)
    marker = splice(plan, "gist", POLICY)
    assert marker is not None
    assert list(visible(log.extend((marker,)))) == [SystemMessage(SUMMARY_PREFIX + "gist"), reply, question]


def test_a_rebased_marker_keeps_what_was_appended_meanwhile_in_view() -> None:
    """`rebase`: a marker planned before `later` was appended keeps `later` in view too (its `kept` grows by them)."""
    three = UserMessage("three")
    log = Conversation((UserMessage("one"), AssistantMessage("two", "a"), three))
    marker = Compacted("the gist", 1)
    later = (AssistantMessage("four", "a"), UserMessage("five"))
    moved = rebase(marker, later)
    assert moved == Compacted("the gist", 3)
    assert list(visible(log.extend(later).extend((moved,))))[1:] == [three, *later]
    assert rebase(marker, ()) == marker
