"""The turn builders: frozen values that say what a fake model answers to one request.

A script is a sequence of turns. `reply` answers with text, `call_tools` asks for tools, `fail`
makes the call itself fail, `raw` streams exact `ModelEvent`s (with optional `pause`s between
them) and `broken` streams some events and then fails mid-stream. `ScriptedModel` and
`FunctionModel` turn each of these into a stream that obeys the `Model` stream rules (except
`raw` and `broken`, which stream exactly what they are given, rules or not).
"""

from __future__ import annotations

import json
import math
from typing import TypeAlias

import attrs

from ..core import (
    ModelEvent,
    ModelFailed,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    Usage,
)
from ..models.protocol import ModelError

_ARGUMENTS = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
"""How `call` writes arguments: compact JSON, non-ASCII kept, no NaN (one encoder, not one per call)."""

DEFAULT_USAGE = Usage(input_tokens=10, output_tokens=5)
"""The usage a scripted `reply` or `call_tools` turn reports when none is given: 10 input and 5 output tokens."""


def _latency(instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if math.isnan(value) or value < 0:
        raise ValueError(f"{attribute.name} must be a number of seconds >= 0 (math.inf for never), got {value!r}")


@attrs.frozen
class ScriptedCall:
    """One tool call a scripted turn asks for; build it with `call(name, **arguments)`.

    Attributes:
        name: the tool to call.
        arguments: the arguments as JSON text, exactly as the fake model will stream them.
        call_id: the call's id; `None` gives the deterministic ``call_<turn>_<index>``.
    """

    name: str
    arguments: str
    call_id: str | None = None

    def with_id(self, call_id: str) -> ScriptedCall:
        """The same call with an explicit call id."""
        return ScriptedCall(self.name, self.arguments, call_id)

    def with_raw_arguments(self, text: str) -> ScriptedCall:
        """The same call with `text` streamed verbatim as its arguments, valid JSON or not (for bad-input tests)."""
        return attrs.evolve(self, arguments=text)


def call(name: str, /, **arguments: object) -> ScriptedCall:
    """One scripted tool call; `arguments` become its JSON text (compact, in the order given).

    Examples:
        ``call("get_weather", city="Oslo")`` streams the arguments ``{"city":"Oslo"}``;
        ``call("lookup", id=3).with_id("c1")`` fixes the call id.

    Raises:
        TypeError: an argument is not JSON (only ``str``, numbers, ``bool``, ``None``, lists and dicts are).
    """
    try:
        text = _ARGUMENTS.encode(arguments)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"call({name!r}, ...): arguments must be JSON values: {exc}") from None
    return ScriptedCall(name, text)


@attrs.frozen
class Pause:
    """A gap of `seconds` (virtual time under `MockClock`) between two events of a `raw` or `broken` turn."""

    seconds: float = attrs.field(validator=_latency)


def pause(seconds: float) -> Pause:
    """A gap between two events of a `raw` or `broken` turn."""
    return Pause(seconds)


Step: TypeAlias = ModelEvent | Pause
"""One step of a `raw` turn: an event to stream, or a pause."""


@attrs.frozen(kw_only=True)
class ScriptedReply:
    """A turn that answers with text (and optional reasoning) and finishes with ``STOP``; see `reply`."""

    text: str
    reasoning: str | None = None
    usage: Usage = DEFAULT_USAGE
    latency: float = attrs.field(default=0.0, validator=_latency)


@attrs.frozen(kw_only=True)
class ScriptedToolCalls:
    """A turn that asks for tools (after optional text) and finishes with ``TOOL_CALLS``; see `call_tools`."""

    calls: tuple[ScriptedCall, ...]
    text: str | None = None
    reasoning: str | None = None
    usage: Usage = DEFAULT_USAGE
    latency: float = attrs.field(default=0.0, validator=_latency)


@attrs.frozen(kw_only=True)
class ScriptedFailure:
    """A turn whose call fails before any event, after `latency`; see `fail`."""

    failure: ModelFailed
    latency: float = attrs.field(default=0.0, validator=_latency)


@attrs.frozen(kw_only=True)
class ScriptedEvents:
    """A turn that streams exactly `steps`, then fails with `failure` if one is given; see `raw` and `broken`."""

    steps: tuple[Step, ...]
    failure: ModelFailed | None = None
    latency: float = attrs.field(default=0.0, validator=_latency)


ScriptedTurn: TypeAlias = ScriptedReply | ScriptedToolCalls | ScriptedFailure | ScriptedEvents
"""One turn of a script: what a fake model answers to one request."""


def reply(
    text: str, *, latency: float = 0.0, usage: Usage | None = None, reasoning: str | None = None
) -> ScriptedReply:
    """A turn that answers with `text`.

    The text streams as one delta per word (each word carrying the whitespace before it), after
    any `reasoning` (streamed the same way); then the turn's usage, then ``FinishReason.STOP``.

    Args:
        text: the answer.
        latency: seconds before the first event (virtual time under `MockClock`; ``math.inf`` never answers).
        usage: the usage the turn reports; `DEFAULT_USAGE` (10 in, 5 out) when `None`.
        reasoning: reasoning text streamed before the answer.
    """
    return ScriptedReply(
        text=text, reasoning=reasoning, usage=DEFAULT_USAGE if usage is None else usage, latency=latency
    )


def call_tools(
    *calls: ScriptedCall,
    text: str | None = None,
    latency: float = 0.0,
    usage: Usage | None = None,
    reasoning: str | None = None,
) -> ScriptedToolCalls:
    """A turn that asks for one or more tool calls, in order.

    Each call streams as a delta carrying its name and the first part of its arguments, then a
    delta with the rest; any `text` and `reasoning` stream first; then the usage and
    ``FinishReason.TOOL_CALLS``. Calls without an explicit id get ``call_<turn>_<index>``, where
    `turn` counts the model's requests from 0 and `index` the calls of the turn from 0.

    Raises:
        ValueError: no calls, or two calls with the same explicit id.
    """
    if not calls:
        raise ValueError("call_tools() needs at least one call(...); use reply(...) for a turn without tools")
    for scripted in calls:
        if not isinstance(scripted, ScriptedCall):
            raise TypeError(f"call_tools() takes call(...) values, got {scripted!r}")
    ids = [scripted.call_id for scripted in calls if scripted.call_id is not None]
    if len(ids) != len(set(ids)):
        raise ValueError(f"call_tools(): call ids must be unique within a turn, got {ids}")
    return ScriptedToolCalls(
        calls=calls, text=text, reasoning=reasoning, usage=DEFAULT_USAGE if usage is None else usage, latency=latency
    )


def fail(error: ModelError | ModelFailureKind | str, *, latency: float = 0.0) -> ScriptedFailure:
    """A turn whose model call fails before streaming anything: entering the stream raises `ModelError`.

    Args:
        error: the `ModelError` to raise (a fresh copy each time); a `ModelFailureKind` (with a
            generic message); or a message (kind ``OTHER``).
        latency: seconds before the failure.
    """
    return ScriptedFailure(failure=_failure(error, "scripted model failure"), latency=latency)


def raw(*steps: Step, latency: float = 0.0) -> ScriptedEvents:
    """A turn that streams exactly these events, with optional `pause`s between them.

    Nothing is added or checked: ``raw()`` is a model that returns nothing, ``raw(ModelTextDelta("Hi"))``
    a stream truncated before its finish. Use it to test how code copes with streams that break the rules.

    Raises:
        TypeError: a step is neither a `ModelEvent` nor a `pause`.
    """
    return ScriptedEvents(steps=_steps("raw", steps), latency=latency)


def broken(
    *steps: Step,
    error: ModelError | ModelFailureKind | str = ModelFailureKind.TRANSPORT,
    latency: float = 0.0,
) -> ScriptedEvents:
    """A turn that streams these events and then raises `ModelError` mid-stream (no finish).

    Args:
        steps: the events (and pauses) streamed before the failure.
        error: as for `fail`; by default a ``TRANSPORT`` failure ("stream broke mid-turn").
        latency: seconds before the first event.
    """
    return ScriptedEvents(
        steps=_steps("broken", steps), failure=_failure(error, "stream broke mid-turn"), latency=latency
    )


def _steps(builder: str, steps: tuple[Step, ...]) -> tuple[Step, ...]:
    for step in steps:
        if not isinstance(
            step, ModelTextDelta | ModelReasoningDelta | ModelToolCallDelta | ModelUsage | ModelFinish | Pause
        ):
            raise TypeError(f"{builder}() takes ModelEvent values and pause(...), got {step!r}")
    return steps


def _failure(error: ModelError | ModelFailureKind | str, default_message: str) -> ModelFailed:
    match error:
        case ModelError():
            return error.to_agent_error()
        case ModelFailureKind():
            return ModelFailed(error, f"{default_message} ({error.value})")
        case str():
            return ModelFailed(ModelFailureKind.OTHER, error)
        case _:
            raise TypeError(f"expected a ModelError, a ModelFailureKind or a message, got {error!r}")
