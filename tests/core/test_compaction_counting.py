"""The token estimate compaction decides by, by example.

Rule (original-notes, CompactingSession): "heuristic counter = ceil(chars/4)" over the text of each item; a tool
call counts its name and arguments, a tool result its output, and a compaction marker the summary the model is
shown in its place (the prefix and the summary; nothing for a blank summary, which shows nothing).
"""

from __future__ import annotations

import pytest

from helikon_fc.core import AssistantMessage, Compacted, Conversation, ToolCall, ToolResult, UserMessage
from helikon_fc.core.compaction import SUMMARY_PREFIX, estimate_tokens, item_tokens


@pytest.mark.parametrize(("chars", "tokens"), [(0, 0), (1, 1), (3, 1), (4, 1), (5, 2), (8, 2), (9, 3)])
def test_a_text_costs_its_characters_over_four_rounded_up(chars: int, tokens: int) -> None:
    assert item_tokens(UserMessage("x" * chars)) == tokens


def test_each_kind_of_item_counts_the_text_the_model_sees() -> None:
    assert item_tokens(ToolCall("c", "abcd", "x" * 5)) == 3  # 9 characters: name and arguments
    assert item_tokens(ToolResult("c", "x" * 8)) == 2
    summary = "y" * 7
    assert item_tokens(Compacted(summary, 0)) == -(-(len(SUMMARY_PREFIX) + 7) // 4)
    assert item_tokens(Compacted("   ", 0)) == 0


def test_the_estimate_of_a_conversation_is_the_sum_over_its_items() -> None:
    items = (UserMessage("x" * 5), AssistantMessage("x" * 4, "a"), ToolResult("c", ""))
    assert estimate_tokens(Conversation(items)) == 3
    assert estimate_tokens(items) == 3
