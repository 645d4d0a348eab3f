"""Checks of the permission API's arguments, in the one message shape of every bad argument::

    Guard: action must be a GuardAction or one of 'deny', 'ask', got 'block' (str)

Everything is checked when it is built, so a mistake in a permission configuration surfaces where it
was made, never as a call quietly allowed (or refused) at run time. An enum-valued argument takes the
member or its exact value string (`member`), converted once, at construction.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from typing import TypeVar, cast

import attrs

from ..json_value import JsonValue
from ..schema import json_type_name

__all__ = [
    "describe",
    "json_object_problem",
    "member",
    "message",
    "non_empty",
    "require",
    "require_arguments",
    "text",
]

E = TypeVar("E", bound=enum.Enum)


def describe(value: object) -> str:
    """`value` as a message shows it: its repr (cut to 60 characters) and its type."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def message(owner: str, argument: str, got: object, allowed: str, hint: str = "") -> str:
    """``"<owner>: <argument> must be <allowed>, got <got>[; <hint>]"``."""
    text = f"{owner}: {argument} must be {allowed}, got {describe(got)}"
    return f"{text}; {hint}" if hint else text


def require(
    owner: str, argument: str, value: object, types: type | tuple[type, ...], allowed: str, hint: str = ""
) -> None:
    """Raise `TypeError` unless `value` is an instance of `types` (a `bool` passes only for `bool`)."""
    wanted = types if isinstance(types, tuple) else (types,)
    if not isinstance(value, wanted) or (isinstance(value, bool) and bool not in wanted):
        raise TypeError(message(owner, argument, value, allowed, hint))


def member(kind: type[E], value: object, owner: str, argument: str) -> E:
    """`value` as a member of `kind`: the member itself, or its exact value string.

    Raises:
        TypeError: `value` is neither a member nor a string.
        ValueError: `value` is a string that is not one of the values (``"DENY"`` is not ``"deny"``).
    """
    if isinstance(value, kind):
        return value
    values = ", ".join(repr(one.value) for one in kind)
    allowed = f"a {kind.__name__} or one of {values}"
    if not isinstance(value, str):
        raise TypeError(message(owner, argument, value, allowed))
    for one in kind:
        if one.value == value:
            return one
    raise ValueError(message(owner, argument, value, allowed))


def json_object_problem(text: str) -> str | None:
    """Why `text` is not the JSON text of an object (blank text included), or `None` when it is one."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(value, dict):
        return f"a JSON {json_type_name(cast(JsonValue, value))}, not an object"
    return None


def require_arguments(owner: str, argument: str, value: object) -> None:
    """Raise unless `value` is the JSON text of an object: what replaced arguments must be."""
    allowed = "the JSON text of an object"
    require(owner, argument, value, str, allowed)
    assert isinstance(value, str)
    problem = json_object_problem(value)
    if problem is not None:
        raise ValueError(message(owner, argument, value, allowed, problem))


def non_empty(kind: str) -> Callable[[object, attrs.Attribute[str], str], None]:
    """An attrs validator: the field is a non-empty string."""

    def check(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
        require(kind, attribute.name, value, str, "a non-empty string")
        if not value:
            raise ValueError(message(kind, attribute.name, value, "a non-empty string"))

    return check


def text(owner: str) -> Callable[[object, attrs.Attribute[str], object], None]:
    """An attrs validator: the field is a string (empty allowed)."""

    def check(instance: object, attribute: attrs.Attribute[str], value: object) -> None:
        require(owner, attribute.name, value, str, "a string")

    return check
