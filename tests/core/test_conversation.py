"""`Conversation`: an observably immutable sequence that grows without copying."""

from __future__ import annotations

import pytest

from helikon_fc.core import AssistantMessage, Conversation, ToolCall, ToolResult, UserMessage

HI = UserMessage("hi")
HELLO = AssistantMessage("hello", "a")


def test_extend_returns_a_new_conversation_and_leaves_the_old_one() -> None:
    """Extending gives a longer conversation; the one extended keeps its length and items."""
    base = Conversation([HI])
    longer = base.extend([HELLO])
    assert list(base) == [HI] and len(base) == 1
    assert list(longer) == [HI, HELLO]
    assert base.extend([]) is base


def test_views_of_one_log_stay_independent_when_branching() -> None:
    """Extending an older view with different items branches; no existing view changes."""
    base = Conversation([HI])
    first = base.extend([HELLO])
    second = base.extend([UserMessage("other")])
    assert list(first) == [HI, HELLO]
    assert list(second) == [HI, UserMessage("other")]
    assert list(first.extend([HI])) == [HI, HELLO, HI]
    assert list(second) == [HI, UserMessage("other")]


def test_extending_an_older_view_with_the_same_items_shares_the_log() -> None:
    """The driver extending the context's conversation with the appends `transition` already extended it with
    does not copy the conversation (so a long run stays linear)."""
    base = Conversation([HI])
    call = ToolCall("c", "f", "{}")
    in_request = base.extend([HELLO, call])
    by_driver = base.extend((HELLO, call))
    assert by_driver == in_request
    assert by_driver._log is base._log
    partly = base.extend([HELLO])
    assert partly._log is base._log and list(partly) == [HI, HELLO]


def test_sequence_behaviour() -> None:
    """Indexing, negative indexing, slicing (a tuple), equality, hashing and repr behave as for a tuple."""
    conversation = Conversation([HI, HELLO, ToolResult("c", "o")])
    assert conversation[0] == HI and conversation[-1] == ToolResult("c", "o")
    assert conversation[1:] == (HELLO, ToolResult("c", "o"))
    with pytest.raises(IndexError):
        conversation[3]
    with pytest.raises(IndexError):
        conversation[-4]
    assert conversation == Conversation([HI, HELLO, ToolResult("c", "o")])
    assert conversation != Conversation([HI])
    assert hash(conversation) == hash(Conversation([HI, HELLO, ToolResult("c", "o")]))
    assert repr(Conversation([HI])) == "Conversation([UserMessage(text='hi')])"
    assert Conversation() == Conversation([])
