"""The provider conformance checker: scenarios, a trace of what a `Model` did, and the rules it must obey.

Any `Model` can be run through it: a *subject* turns each `Scenario` into a model and a request
(an OpenAI model pointed at a local server replaying a fixture, a scripted model, ...),
`record` runs the stream and notes every event, the error raised and whether the harness
cancelled it, and `violations` checks the trace against the stream rules of the `Model`
protocol, reporting them in this fixed order of precedence:

1. ``DUPLICATE_FINISH``: more than one finish.
2. ``USAGE_AFTER_FINISH``: a usage snapshot after the finish.
3. ``EVENT_AFTER_FINISH``: any other event, or an error, after the finish.
4. ``FINISH_ON_CANCEL``: a finish in a stream the consumer cancelled before its end.
5. ``FINISH_AFTER_ERROR``: a finish in a stream the server broke with an error.
6. ``FINISH_ON_TRUNCATION``: a finish in a stream cut off before its stop reason.
7. ``MISSING_FINISH``: no finish although the server gave a stop reason and the body ended.
8. ``TOOL_NAME_NOT_EXACTLY_ONCE``: a call id whose name was reported zero or several times.

`floor_failures` adds the anti-vacuity floors, so that a subject cannot pass by doing nothing:
text scenarios need a text delta, tool scenarios a delta naming the fixture's tool, a cancel
after the stop reason needs the usage seen first, the finish must carry the declared reason,
error scenarios must raise a `ModelError` (and other scenarios nothing but a transport error on
truncation), and a cancellation must have been fired while the server was still holding the
stream open.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Sequence
from typing import cast

import attrs
import trio

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelRequest,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
)
from helikon_fc.models import Model, ModelError

DRAIN_TIMEOUT = 10.0
"""No scenario may take longer than this to run (seconds); a hang is a failure, not a stuck suite."""


class Ending(enum.Enum):
    """How the server ends a scenario's stream."""

    STOP = "stop"
    """The body ends after a stop reason: a finish is due."""
    TRUNCATED = "truncated"
    """The body is cut off before any stop reason: no finish."""
    ERROR = "error"
    """The server reports an error mid-stream: a `ModelError`, no finish."""
    CANCELLED = "cancelled"
    """The server holds the stream open and the consumer cancels: no finish."""


class Scenario(enum.Enum):
    """The conformance scenarios; each value is ``(label, ending, tool name or None, finish reason or None)``."""

    CLEAN_STOP = ("clean_stop", Ending.STOP, None, FinishReason.STOP)
    TRUNCATED_AFTER_STOP_REASON = ("truncated_after_stop_reason", Ending.STOP, None, FinishReason.STOP)
    TRUNCATED_MID_GENERATION = ("truncated_mid_generation", Ending.TRUNCATED, None, None)
    ERROR_MID_GENERATION = ("error_mid_generation", Ending.ERROR, None, None)
    ERROR_AFTER_STOP_REASON = ("error_after_stop_reason", Ending.ERROR, None, None)
    CANCEL_MID_GENERATION = ("cancel_mid_generation", Ending.CANCELLED, None, None)
    CANCEL_AFTER_STOP_REASON = ("cancel_after_stop_reason", Ending.CANCELLED, None, None)
    FRAGMENTED_TOOL_NAME = ("fragmented_tool_name", Ending.STOP, "get_weather", FinishReason.TOOL_CALLS)
    TOOL_CALL_CLEAN_STOP = ("tool_call_clean_stop", Ending.STOP, "get_weather", FinishReason.TOOL_CALLS)
    NO_USAGE_REPORTED = ("no_usage_reported", Ending.STOP, None, FinishReason.STOP)

    @property
    def ending(self) -> Ending:
        """How the stream ends."""
        return cast(Ending, self.value[1])

    @property
    def tool_name(self) -> str | None:
        """The tool the fixture calls (tool scenarios only)."""
        return cast("str | None", self.value[2])

    @property
    def finish_reason(self) -> FinishReason | None:
        """The finish reason due at the end (scenarios ending in a stop only)."""
        return cast("FinishReason | None", self.value[3])


class Rule(enum.IntEnum):
    """The stream rules, numbered in their order of precedence."""

    DUPLICATE_FINISH = 1
    USAGE_AFTER_FINISH = 2
    EVENT_AFTER_FINISH = 3
    FINISH_ON_CANCEL = 4
    FINISH_AFTER_ERROR = 5
    FINISH_ON_TRUNCATION = 6
    MISSING_FINISH = 7
    TOOL_NAME_NOT_EXACTLY_ONCE = 8


@attrs.frozen
class Violation:
    """One broken rule, with what broke it."""

    rule: Rule
    detail: str = ""


@attrs.frozen(kw_only=True)
class Trace:
    """What a model did in one scenario."""

    events: tuple[ModelEvent, ...]
    error: BaseException | None = None
    """The exception the stream raised (on entering or while iterating), if any."""
    cancelled: bool = False
    """Whether the harness cancelled the consumer before the stream ended."""
    fired_while_parked: bool | None = None
    """For cancellations: whether the server was still holding the stream open when they fired."""


def violations(trace: Trace, scenario: Scenario) -> list[Violation]:
    """Every rule `trace` breaks for `scenario`, in order of precedence (empty when it conforms)."""
    found: list[Violation] = []
    finishes = [index for index, event in enumerate(trace.events) if isinstance(event, ModelFinish)]
    if len(finishes) > 1:
        found.append(Violation(Rule.DUPLICATE_FINISH, f"{len(finishes)} finishes"))
    if finishes:
        after = trace.events[finishes[0] + 1 :]
        if any(isinstance(event, ModelUsage) for event in after):
            found.append(Violation(Rule.USAGE_AFTER_FINISH))
        others = [event for event in after if not isinstance(event, ModelUsage | ModelFinish)]
        if others or trace.error is not None:
            what = repr(others[0]) if others else f"error {trace.error!r}"
            found.append(Violation(Rule.EVENT_AFTER_FINISH, what))
        match scenario.ending:
            case Ending.CANCELLED:
                found.append(Violation(Rule.FINISH_ON_CANCEL))
            case Ending.ERROR:
                found.append(Violation(Rule.FINISH_AFTER_ERROR))
            case Ending.TRUNCATED:
                found.append(Violation(Rule.FINISH_ON_TRUNCATION))
            case Ending.STOP:
                pass
    elif scenario.ending is Ending.STOP:
        found.append(Violation(Rule.MISSING_FINISH, f"error {trace.error!r}" if trace.error else ""))
    names: dict[str, int] = {}
    for event in trace.events:
        if isinstance(event, ModelToolCallDelta):
            names.setdefault(event.call_id, 0)
            if event.name is not None:
                names[event.call_id] += 1
    for call_id, count in names.items():
        if count != 1:
            found.append(Violation(Rule.TOOL_NAME_NOT_EXACTLY_ONCE, f"call_id={call_id} count={count}"))
    return found


def floor_failures(trace: Trace, scenario: Scenario) -> list[str]:
    """Why the trace proves too little for `scenario` to count as passed (empty when it proves enough)."""
    failures: list[str] = []
    events = trace.events
    if scenario.tool_name is None:
        if not any(isinstance(event, ModelTextDelta) for event in events):
            failures.append("a text scenario produced no text delta")
    elif not any(isinstance(event, ModelToolCallDelta) and event.name == scenario.tool_name for event in events):
        failures.append(f"no tool-call delta named {scenario.tool_name!r}")
    if scenario is Scenario.CANCEL_AFTER_STOP_REASON and not any(isinstance(e, ModelUsage) for e in events):
        failures.append("a cancel after the stop reason must have seen the usage first")
    if scenario is Scenario.NO_USAGE_REPORTED and not any(
        isinstance(e, ModelUsage) and not e.usage.reported for e in events
    ):
        failures.append("a turn without a usage report must say so with a usage whose reported is False")
    finish = next((event for event in events if isinstance(event, ModelFinish)), None)
    if finish is not None and scenario.finish_reason is not None and finish.reason is not scenario.finish_reason:
        failures.append(f"finish reason {finish.reason} differs from the declared {scenario.finish_reason}")
    error = trace.error
    match scenario.ending:
        case Ending.ERROR:
            if not isinstance(error, ModelError):
                failures.append(f"an error scenario must raise ModelError, got {error!r}")
        case Ending.TRUNCATED:
            if error is not None and not (isinstance(error, ModelError) and error.kind is ModelFailureKind.TRANSPORT):
                failures.append(f"a truncation may only raise a TRANSPORT ModelError, got {error!r}")
        case Ending.STOP | Ending.CANCELLED:
            if error is not None:
                failures.append(f"unexpected error {error!r}")
    if scenario.ending is Ending.CANCELLED:
        if not trace.cancelled:
            failures.append("the stream ended before the harness could cancel it")
        elif not trace.fired_while_parked:
            failures.append("the cancellation did not fire while the server was holding the stream open")
    return failures


@attrs.frozen(kw_only=True)
class CancelPlan:
    """When to cancel: after the server parks and the consumer has seen `ready` events."""

    parked: Callable[[], Awaitable[None]]
    """Returns once the server is holding the stream open."""
    still_parked: Callable[[], bool]
    """Whether the server is still holding it (checked at the moment of cancelling)."""
    ready: Callable[[Sequence[ModelEvent]], bool]
    """Whether the consumer has seen enough to cancel now."""


async def record(model: Model, request: ModelRequest, *, cancel: CancelPlan | None = None) -> Trace:
    """Run `model` on `request`, noting every event, the error raised, and any cancellation fired.

    Raises:
        trio.TooSlowError: the scenario took more than `DRAIN_TIMEOUT` seconds.
    """
    events: list[ModelEvent] = []
    error: BaseException | None = None
    cancelled = False
    fired_while_parked: bool | None = None
    finished = False

    async def consume(scope: trio.CancelScope, others: trio.CancelScope) -> None:
        nonlocal error, finished
        with scope:
            try:
                async with model.stream(request) as stream:
                    async for event in stream:
                        events.append(event)
            except Exception as exc:
                error = exc
        finished = True
        others.cancel()

    async def canceller(plan: CancelPlan, scope: trio.CancelScope) -> None:
        nonlocal cancelled, fired_while_parked
        await plan.parked()
        while not plan.ready(events) and not finished:
            await trio.sleep(0.005)
        if not finished:
            fired_while_parked = plan.still_parked()
            cancelled = True
            scope.cancel()

    with trio.fail_after(DRAIN_TIMEOUT):
        scope = trio.CancelScope()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(consume, scope, nursery.cancel_scope)
            if cancel is not None:
                nursery.start_soon(canceller, cancel, scope)
    return Trace(events=tuple(events), error=error, cancelled=cancelled, fired_while_parked=fired_while_parked)
