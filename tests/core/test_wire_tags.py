"""The ``"type"`` tags of the wire are declared (`wire.TAGS`), checked against the unions, and survive a rename."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import get_args

import attrs
import pytest

from helikon_fc.core import ToolCall, to_json
from helikon_fc.core.wire import TAGS, UNIONS, _make_converter, check_tags


@attrs.frozen
class Red:
    pass


@attrs.frozen
class Green:
    pass


@attrs.frozen
class Blue:
    pass


@contextmanager
def renamed(cls: type, name: str) -> Iterator[None]:
    """`cls` under another class name inside the block (as a refactoring would leave it)."""
    old = cls.__name__, cls.__qualname__
    cls.__name__ = cls.__qualname__ = name
    try:
        yield
    finally:
        cls.__name__, cls.__qualname__ = old


def test_every_member_of_every_union_has_exactly_one_declared_tag() -> None:
    members = {cls for union in UNIONS.values() for cls in get_args(union) if isinstance(cls, type)}
    assert set(TAGS) == members
    assert check_tags(UNIONS, TAGS) == dict(TAGS)


def test_tags_are_unique_within_each_union() -> None:
    for union in UNIONS.values():
        tags = [TAGS[cls] for cls in get_args(union) if isinstance(cls, type)]
        assert len(tags) == len(set(tags))


def test_declared_tags_pass_the_check_and_come_back_as_a_dict() -> None:
    tags: dict[type, str] = {Red: "red", Green: "green", Blue: "red"}  # a tag may be reused in another union
    checked = check_tags({"Warm": Red | Green, "Cool": Blue | Green}, tags)
    assert checked == tags and type(checked) is dict


def test_a_member_without_a_declared_tag_is_refused() -> None:
    with pytest.raises(TypeError) as caught:
        check_tags({"Colour": Red | Green}, {Red: "red"})
    assert str(caught.value) == "wire tags: Green has no declared tag"


def test_a_tag_for_a_class_in_no_union_is_refused() -> None:
    with pytest.raises(TypeError) as caught:
        check_tags({"Colour": Red | Green}, {Red: "red", Green: "green", Blue: "blue"})
    assert str(caught.value) == "wire tags: Blue has a tag but is in no union"


def test_two_members_of_one_union_may_not_share_a_tag() -> None:
    with pytest.raises(TypeError) as caught:
        check_tags({"Colour": Red | Green | Blue}, {Red: "warm", Green: "cool", Blue: "warm"})
    assert str(caught.value) == "wire tags: Colour: Red and Blue share the tag 'warm'"


def test_every_mismatch_is_listed_in_one_error() -> None:
    with pytest.raises(TypeError) as caught:
        check_tags({"Colour": Red | Green | Blue}, {Red: "c", Blue: "c", ToolCall: "tool_call"})
    assert str(caught.value) == (
        "wire tags: Green has no declared tag; ToolCall has a tag but is in no union; "
        "Colour: Red and Blue share the tag 'c'"
    )


def test_renaming_a_class_does_not_change_its_tag() -> None:
    call = ToolCall("c1", "f", "{}")
    with renamed(ToolCall, "ToolInvocation"):
        assert check_tags(UNIONS, TAGS)[ToolCall] == "tool_call"
        assert _make_converter().unstructure(call)["type"] == "tool_call"
    assert to_json(call) == '{"type":"tool_call","call_id":"c1","name":"f","arguments":"{}"}'


def test_no_tag_is_the_class_name_rewritten_when_a_name_changes() -> None:
    """The table is keyed by class, not by name: a class renamed at run time keeps its tag in the check."""
    with renamed(Red, "Crimson"):
        assert check_tags({"Colour": Red | Green}, {Red: "red", Green: "green"})[Red] == "red"


def test_members_without_a_tag_are_named_once_each_and_never_as_sharing_one() -> None:
    """Two untagged members of one union are two missing tags, not two members sharing the tag `None`."""
    with pytest.raises(TypeError) as caught:
        check_tags({"Colour": Red | Green | Blue}, {Red: "red"})
    assert str(caught.value) == "wire tags: Green has no declared tag; Blue has no declared tag"
