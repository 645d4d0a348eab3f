"""Messages of `validate` the keyword tests leave out: the checker's own words for a problem the table has no
wording for, and values shown in their own characters."""

from __future__ import annotations

from helikon_fc.core import JsonValue, validate


def test_a_pattern_the_checker_gives_up_on_is_reported_with_its_own_message() -> None:
    """A pattern that needs more backtracking than the checker allows is a problem at the value's path, said in
    the checker's words (never an exception)."""
    schema: JsonValue = {"properties": {"name": {"pattern": r"^(\w+\s?)*$(?<=x)"}}}
    assert validate({"name": "a" * 30 + "!"}, schema) == [
        "$.name: Error executing regex: Max limit for backtracking count exceeded"
    ]


def test_values_in_messages_are_written_as_they_are_not_escaped() -> None:
    """A non-ASCII value is shown in its own characters, so a model (or a person) reads it as it was sent."""
    assert validate("café", {"const": "thé"}) == ['$: expected "thé", got "café"']
    assert validate({"ville": "Zürich"}, {"properties": {"ville": {"enum": ["Genève"]}}}) == [
        '$.ville: "Zürich" is not one of "Genève"'
    ]
