"""Laws of `Conversation`: it behaves exactly as the list of its items, however it was built.

The purity and resume properties compare outcomes that hold conversations, so these laws guard
the others: a `Conversation.__eq__` that said "equal" too often would let them pass on a wrong core.
Covers `conversation.py` (mutation testing: every mutant of the module is killed here or in
``tests/core/test_conversation.py``).
"""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st
from properties.strategies import items

from helikon_fc.core import Conversation, Item

item_lists = st.lists(items(), max_size=6)


def built(prefix: list[Item], rest: list[Item], branch: list[Item]) -> Conversation:
    """`prefix + rest` built by extending: a view of a log that a longer view may have grown past it."""
    base = Conversation(prefix)
    view = base.extend(rest)
    view.extend(branch)  # grows the shared log past `view`, which must not show through
    return view


@given(item_lists, item_lists)
def test_conversations_are_equal_exactly_when_their_items_are(xs: list[Item], ys: list[Item]) -> None:
    """``Conversation(xs) == Conversation(ys)`` iff ``xs == ys``; equal conversations hash equally."""
    left, right = Conversation(xs), Conversation(ys)
    assert (left == right) is (xs == ys)
    assert (left != right) is (xs != ys)
    if xs == ys:
        assert hash(left) == hash(right)


@given(item_lists, item_lists, item_lists, item_lists)
def test_a_conversation_is_the_list_of_its_items_however_built(
    prefix: list[Item], rest: list[Item], branch: list[Item], other: list[Item]
) -> None:
    """Length, indexing (negative too), slicing, iteration and equality match the list ``prefix + rest``."""
    conversation = built(prefix, rest, branch)
    expected = prefix + rest
    assert list(conversation) == expected and len(conversation) == len(expected)
    assert conversation[:] == tuple(expected) and conversation[1:-1] == tuple(expected[1:-1])
    for index in range(-len(expected), len(expected)):
        assert conversation[index] == expected[index]
    assert (conversation == Conversation(other)) is (expected == other)
    assert conversation == Conversation(expected) and hash(conversation) == hash(Conversation(expected))
    for outside in (len(expected), -len(expected) - 1):  # past the view, even where its log goes on
        with pytest.raises(IndexError):
            conversation[outside]
    assert (conversation == expected) is False and conversation != tuple(expected)  # only a Conversation is equal
    assert repr(conversation) == f"Conversation({expected!r})"


@given(item_lists, item_lists)
def test_extending_never_changes_a_conversation_someone_holds(xs: list[Item], ys: list[Item]) -> None:
    """Every view keeps its value when it, or an older view of its log, is extended (shared or branched)."""
    base = Conversation(xs)
    longer = base.extend(ys)
    again = base.extend(ys)  # the same items again: shares the log
    other = base.extend([*ys[1:], *ys[:1]])  # different items (when ys has two distinct ones): a branch
    assert list(base) == xs and list(longer) == xs + ys and list(again) == xs + ys
    assert list(other) == [*xs, *ys[1:], *ys[:1]]
    assert list(longer) == xs + ys
