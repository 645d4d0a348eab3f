"""Checks of definition arguments, with one message shape for every bad argument.

Every definition (agents, tools, handoffs, configs, inputs) is checked when it is built, so a
mistake surfaces where it was made, not deep inside a run. Each check raises `TypeError` (wrong
kind of value) or `ValueError` (right kind, bad value) with a message of one shape::

    LlmAgent: model must be a Model (an object with .name and .stream(request)), got 'gpt-5-mini' (str);
    for an OpenAI model use OpenAIModel.chat('gpt-5-mini')

The ``*_field`` functions are attrs validators built from the same checks; the owner they name
is the class being built.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import attrs

from ..models.protocol import Model

Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]
"""The signature attrs calls a field validator with."""


def describe(value: object) -> str:
    """`value` as a message shows it: its repr (cut to 60 characters) and its type."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def message(owner: str, argument: str, got: object, allowed: str, hint: str = "") -> str:
    """``"<owner>: <argument> must be <allowed>, got <got>[; <hint>]"``: the one shape of a bad-argument message."""
    text = f"{owner}: {argument} must be {allowed}, got {describe(got)}"
    return f"{text}; {hint}" if hint else text


def require_type(owner: str, argument: str, value: object, types: type | tuple[type, ...], allowed: str) -> None:
    """Raise `TypeError` unless `value` is an instance of `types` (a `bool` never passes for a number)."""
    wanted = types if isinstance(types, tuple) else (types,)
    if isinstance(value, bool) and bool not in wanted:
        raise TypeError(message(owner, argument, value, allowed))
    if not isinstance(value, wanted):
        raise TypeError(message(owner, argument, value, allowed))


def require_name(owner: str, argument: str, value: object) -> None:
    """Raise unless `value` is a non-empty string (`TypeError` for a non-string, `ValueError` for blank)."""
    require_type(owner, argument, value, str, "a non-empty string")
    assert isinstance(value, str)
    if not value.strip():
        raise ValueError(message(owner, argument, value, "a non-empty string"))


def require_int(owner: str, argument: str, value: object, minimum: int, *, optional: bool = False) -> None:
    """Raise unless `value` is an int of at least `minimum` (or `None` when `optional`)."""
    if optional and value is None:
        return
    allowed = f"an int >= {minimum}" + (" or None" if optional else "")
    require_type(owner, argument, value, int, allowed)
    assert isinstance(value, int)
    if value < minimum:
        raise ValueError(message(owner, argument, value, allowed))


def require_seconds(owner: str, argument: str, value: object, *, optional: bool = True) -> None:
    """Raise unless `value` is a positive number of seconds (or `None` when `optional`)."""
    if optional and value is None:
        return
    allowed = "a positive number of seconds" + (" or None" if optional else "")
    require_type(owner, argument, value, (int, float), allowed)
    assert isinstance(value, int | float)
    if math.isnan(value) or value <= 0:
        raise ValueError(message(owner, argument, value, allowed))


def require_model(owner: str, argument: str, value: object) -> None:
    """Raise `TypeError` unless `value` is a `Model`; a string gets a hint to wrap it in a provider."""
    if isinstance(value, Model):
        return
    hint = f"for an OpenAI model use OpenAIModel.chat({value!r})" if isinstance(value, str) else ""
    raise TypeError(message(owner, argument, value, "a Model (an object with .name and .stream(request))", hint))


def is_agent(value: object) -> bool:
    """Whether `value` looks like an `Agent`: a ``name``, a ``description`` and a ``run`` method (not a class)."""
    return not isinstance(value, type) and (
        isinstance(getattr(value, "name", None), str)
        and isinstance(getattr(value, "description", None), str)
        and callable(getattr(value, "run", None))
    )


def require_agent(owner: str, argument: str, value: object) -> None:
    """Raise `TypeError` unless `value` looks like an `Agent` (see `is_agent`)."""
    if not is_agent(value):
        hint = "pass the agent object itself, not its name" if isinstance(value, str) else ""
        raise TypeError(message(owner, argument, value, "an Agent (LlmAgent, a workflow, a swarm or a graph)", hint))


_TOOL_ATTRIBUTES = ("name", "description", "parameters", "invoke")


def require_tool(owner: str, argument: str, value: object) -> None:
    """Raise `TypeError` unless `value` is a `Tool`; a plain function gets a hint to decorate it."""
    if not isinstance(value, type) and all(hasattr(value, attribute) for attribute in _TOOL_ATTRIBUTES):
        return
    if inspect.isfunction(value) or inspect.ismethod(value):
        hint = "decorate it with @function_tool"
    elif isinstance(value, str):
        hint = "pass the tool object itself (a @function_tool function, an AgentAsTool or a Tool), not its name"
    else:
        hint = ""
    allowed = (
        "a Tool (a @function_tool function, an AgentAsTool, or an object with name, description, parameters, invoke)"
    )
    raise TypeError(message(owner, argument, value, allowed, hint))


def field(check: Callable[[str, str, Any], None]) -> Validator:
    """An attrs validator running ``check(<class name>, <field name>, value)``."""

    def validate(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        check(type(instance).__name__, attribute.name, value)

    return validate


def each(check: Callable[[str, str, Any], None]) -> Validator:
    """An attrs validator running `check` on every element of a tuple field, naming it ``field[i]``."""

    def validate(instance: object, attribute: attrs.Attribute[Any], value: tuple[object, ...]) -> None:
        for index, element in enumerate(value):
            check(type(instance).__name__, f"{attribute.name}[{index}]", element)

    return validate


def optional(check: Callable[[str, str, Any], None]) -> Callable[[str, str, Any], None]:
    """`check`, letting `None` through."""

    def run(owner: str, argument: str, value: object) -> None:
        if value is not None:
            check(owner, argument, value)

    return run


def instance_of(types: type | tuple[type, ...], allowed: str) -> Callable[[str, str, Any], None]:
    """A check that `value` is an instance of `types`, described to the user as `allowed`."""

    def run(owner: str, argument: str, value: object) -> None:
        require_type(owner, argument, value, types, allowed)

    return run


def keyed_agents(owner: str, argument: str, value: tuple[object, ...]) -> None:
    """Check ``(key, agent)`` pairs: each key a non-empty string, each agent an `Agent`."""
    for index, pair in enumerate(value):
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError(message(owner, f"{argument}[{index}]", pair, "a (key, agent) pair"))
        require_name(owner, f"{argument}[{index}] key", pair[0])
        require_agent(owner, f"{argument}[{index}] agent", pair[1])


def cancelled_before_start(reason: str) -> str:
    """The `Cancelled` reason of a run started on a context that was already cancelled."""
    return (
        f"the RunContext was already cancelled ({reason}) before this run started; "
        "a cancelled context stays cancelled: start each new run with a fresh RunContext"
    )
