"""`RetryingModel`: what is retried, when, how long it waits (in virtual time), and how it stops."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
import trio
from hypothesis import given, strategies as st
from tests.models.scripted_attempts import HELLO, REQUEST, STOP, Emit, FailOnEnter, FakeModel, collect, err

from helikon_fc.core import ModelEvent, ModelFailureKind
from helikon_fc.models import Model, ModelError, RetryAttempt, RetryingModel, RetryPolicy


def jitters(*values: float) -> Iterator[float]:
    yield from values


def retrying(
    inner: Model, *draws: float, policy: RetryPolicy | None = None
) -> tuple[RetryingModel, list[RetryAttempt]]:
    """A RetryingModel whose jitter draws are `draws`, and the list its retries are noted in."""
    values = jitters(*draws)
    noted: list[RetryAttempt] = []
    return RetryingModel(inner, policy, random=lambda: next(values), on_retry=noted.append), noted


@pytest.mark.parametrize(
    "kind", [ModelFailureKind.RATE_LIMITED, ModelFailureKind.UNAVAILABLE, ModelFailureKind.TRANSPORT]
)
async def test_transient_failures_on_entering_are_retried(kind: ModelFailureKind, autojump_clock: object) -> None:
    """Two transient failures, then a stream: the caller sees only the stream."""
    inner = FakeModel([FailOnEnter(err(kind)), FailOnEnter(err(kind)), Emit((HELLO, STOP))])
    model, noted = retrying(inner, 0.5, 0.5)
    assert await collect(model) == [HELLO, STOP]
    assert len(inner.started) == 3
    assert inner.closed == 3
    assert [n.attempt for n in noted] == [0, 1]


@pytest.mark.parametrize("kind", [ModelFailureKind.CONTEXT_LENGTH, ModelFailureKind.REFUSED, ModelFailureKind.OTHER])
async def test_permanent_failures_are_not_retried(kind: ModelFailureKind, autojump_clock: object) -> None:
    """Waiting does not fix a too-long context, a refusal or an unknown failure: it is raised at once."""
    inner = FakeModel([FailOnEnter(err(kind)), Emit((HELLO, STOP))])
    with pytest.raises(ModelError) as raised:
        await collect(RetryingModel(inner))
    assert raised.value.kind is kind
    assert len(inner.started) == 1


async def test_a_failure_as_the_first_item_is_retried(autojump_clock: object) -> None:
    """A stream whose first item is a failure counts as a failed call."""
    inner = FakeModel([Emit(error=err(ModelFailureKind.UNAVAILABLE)), Emit((HELLO, STOP))])
    assert await collect(RetryingModel(inner, random=lambda: 0.0)) == [HELLO, STOP]
    assert len(inner.started) == 2


async def test_a_failure_after_the_first_event_is_passed_through(autojump_clock: object) -> None:
    """Once an event is out the turn cannot be replayed: the failure surfaces mid-stream, no retry."""
    inner = FakeModel([Emit((HELLO,), error=err(ModelFailureKind.TRANSPORT)), Emit((HELLO, STOP))])
    seen: list[ModelEvent] = []
    with pytest.raises(ModelError) as raised:
        async with RetryingModel(inner).stream(REQUEST) as events:
            async for event in events:
                seen.append(event)
    assert raised.value.kind is ModelFailureKind.TRANSPORT
    assert seen == [HELLO]
    assert len(inner.started) == 1


async def test_attempts_are_bounded_and_the_last_failure_is_raised(autojump_clock: object) -> None:
    """With max_attempts=3 the third failure is the caller's, after exactly two waits."""
    errors = [err(ModelFailureKind.UNAVAILABLE) for _ in range(4)]
    inner = FakeModel([FailOnEnter(e) for e in errors])
    model, noted = retrying(inner, 1.0, 1.0, policy=RetryPolicy(max_attempts=3))
    with pytest.raises(ModelError) as raised:
        await collect(model)
    assert raised.value is errors[2]
    assert len(inner.started) == 3
    assert len(noted) == 2


async def test_backoff_is_full_jitter_exponential_in_virtual_time(autojump_clock: object) -> None:
    """Waits are ceiling x jitter with the ceiling doubling from base_delay: 1 x 0.5, 2 x 0.25, 4 x 1.0."""
    policy = RetryPolicy(max_attempts=4, base_delay=1.0, multiplier=2.0, max_delay=30.0)
    inner = FakeModel([FailOnEnter(err(ModelFailureKind.TRANSPORT)) for _ in range(3)] + [Emit((HELLO, STOP))])
    model, noted = retrying(inner, 0.5, 0.25, 1.0, policy=policy)
    await collect(model)
    gaps = [later - earlier for earlier, later in zip(inner.started, inner.started[1:], strict=False)]
    assert gaps == pytest.approx([0.5, 0.5, 4.0])
    assert [n.delay for n in noted] == pytest.approx([0.5, 0.5, 4.0])


async def test_retry_after_is_a_floor_not_a_ceiling(autojump_clock: object) -> None:
    """A 7 s hint stretches a 0.05 s jittered wait to 7 s; a 0.1 s hint leaves a 0.8 s wait alone."""
    policy = RetryPolicy(max_attempts=3, base_delay=1.0, multiplier=2.0)
    inner = FakeModel(
        [
            FailOnEnter(err(ModelFailureKind.RATE_LIMITED, retry_after=7.0)),
            FailOnEnter(err(ModelFailureKind.RATE_LIMITED, retry_after=0.1)),
            Emit((HELLO, STOP)),
        ]
    )
    model, noted = retrying(inner, 0.05, 0.4, policy=policy)
    await collect(model)
    assert [n.delay for n in noted] == pytest.approx([7.0, 0.8])
    assert inner.started[1] - inner.started[0] == pytest.approx(7.0)


def test_the_ceiling_stops_at_max_delay() -> None:
    """However many failures, the jittered part never exceeds max_delay."""
    policy = RetryPolicy(base_delay=1.0, multiplier=10.0, max_delay=15.0)
    assert policy.delay(5, 0.999) == pytest.approx(15.0 * 0.999)
    assert policy.delay(0, 0.5) == pytest.approx(0.5)


@given(
    attempt=st.integers(min_value=0, max_value=60),
    jitter=st.floats(min_value=0.0, max_value=1.0, exclude_max=True),
    retry_after=st.none() | st.floats(min_value=0.0, max_value=1e4),
)
def test_delay_stays_within_its_bounds(attempt: int, jitter: float, retry_after: float | None) -> None:
    """Every wait is at least the hint and at most max(ceiling, hint)."""
    policy = RetryPolicy()
    delay = policy.delay(attempt, jitter, retry_after)
    ceiling = min(policy.base_delay * policy.multiplier**attempt, policy.max_delay)
    assert delay >= (retry_after or 0.0)
    assert delay <= max(ceiling, retry_after or 0.0)
    assert math.isfinite(delay)


async def test_cancelling_during_the_backoff_ends_cleanly(autojump_clock: object) -> None:
    """A cancellation while waiting out a 100 s hint ends the call at once: no error, no second call."""
    inner = FakeModel([FailOnEnter(err(ModelFailureKind.RATE_LIMITED, retry_after=100.0)), Emit((HELLO, STOP))])
    seen: list[ModelEvent] = []
    with trio.move_on_after(5.0) as scope:
        async with RetryingModel(inner).stream(REQUEST) as events:
            seen.extend([event async for event in events])
    assert scope.cancelled_caught
    assert seen == []
    assert len(inner.started) == 1
    assert inner.closed == 1
    assert trio.current_time() == pytest.approx(5.0)


async def test_cancelling_while_waiting_for_the_first_event_ends_cleanly(autojump_clock: object) -> None:
    """A call that never answers is cancelled cleanly, and its stream is closed."""
    inner = FakeModel([Emit(hang=True)])
    with trio.move_on_after(1.0) as scope:
        await collect(RetryingModel(inner))
    assert scope.cancelled_caught
    assert inner.closed == 1


async def test_an_empty_stream_is_passed_through(autojump_clock: object) -> None:
    """A stream with no items at all is not a failure: the caller sees it end."""
    inner = FakeModel([Emit()])
    assert await collect(RetryingModel(inner)) == []
    assert len(inner.started) == 1


def test_policy_rejects_nonsense() -> None:
    """Zero attempts, negative delays and shrinking multipliers are refused with the field named."""
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="base_delay"):
        RetryPolicy(base_delay=-1.0)
    with pytest.raises(ValueError, match="multiplier"):
        RetryPolicy(multiplier=0.5)
    with pytest.raises(ValueError, match="max_delay"):
        RetryPolicy(max_delay=math.nan)


def test_wrapper_is_a_model_named_after_its_inner_model() -> None:
    """RetryingModel satisfies the Model protocol and takes its inner model's name."""
    model = RetryingModel(FakeModel([]))
    assert isinstance(model, Model)
    assert model.name == "fake"
    assert model.policy == RetryPolicy()


async def test_only_the_listed_kinds_are_retried(autojump_clock: object) -> None:
    """retry_on narrows what is retried: with only RATE_LIMITED, UNAVAILABLE surfaces at once."""
    inner = FakeModel([FailOnEnter(err(ModelFailureKind.UNAVAILABLE)), Emit((HELLO, STOP))])
    policy = RetryPolicy(retry_on=frozenset({ModelFailureKind.RATE_LIMITED}))
    with pytest.raises(ModelError):
        await collect(RetryingModel(inner, policy))
    assert len(inner.started) == 1
