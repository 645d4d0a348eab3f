"""`FallbackModel`: when the next model is asked, when a failure stands, and how the answer says who gave it."""

from __future__ import annotations

import pytest
import trio
from tests.models.scripted_attempts import HELLO, REQUEST, STOP, Emit, FailOnEnter, FakeModel, collect, err

from helikon_fc.core import ModelEvent, ModelFailureKind, ModelUsage, Usage
from helikon_fc.models import FallbackAttempt, FallbackModel, Model, ModelError

USAGE = ModelUsage(Usage(input_tokens=10, output_tokens=5))


def chain(*models: FakeModel) -> tuple[FallbackModel, list[FallbackAttempt]]:
    """A FallbackModel over `models`, and the list its moves are noted in."""
    noted: list[FallbackAttempt] = []
    return FallbackModel(*models, on_fallback=noted.append), noted


@pytest.mark.parametrize(
    "kind", [ModelFailureKind.RATE_LIMITED, ModelFailureKind.UNAVAILABLE, ModelFailureKind.TRANSPORT]
)
async def test_a_transient_failure_on_entering_moves_to_the_next_model(kind: ModelFailureKind) -> None:
    """The primary fails to start: the fallback answers, and the move is told with both names."""
    primary = FakeModel([FailOnEnter(err(kind))], name="a")
    backup = FakeModel([Emit((HELLO, STOP))], name="b")
    model, noted = chain(primary, backup)
    events = await collect(model)
    assert events[0] == HELLO
    assert events[-1] == STOP
    assert [(attempt.model, attempt.error.kind, attempt.next_model) for attempt in noted] == [("a", kind, "b")]
    assert primary.closed == 1
    assert backup.closed == 1


async def test_a_failure_as_the_first_item_moves_on() -> None:
    """A stream whose first item is a failure has streamed nothing: the next model is asked."""
    primary = FakeModel([Emit(error=err(ModelFailureKind.UNAVAILABLE))], name="a")
    backup = FakeModel([Emit((HELLO, USAGE, STOP))], name="b")
    model, _ = chain(primary, backup)
    assert await collect(model) == [HELLO, ModelUsage(USAGE.usage, model="b"), STOP]


@pytest.mark.parametrize("kind", [ModelFailureKind.CONTEXT_LENGTH, ModelFailureKind.REFUSED, ModelFailureKind.OTHER])
async def test_a_failure_not_listed_is_raised_at_once(kind: ModelFailureKind) -> None:
    """Another model would not fix a too-long context or a refusal: the failure stands, the fallback is not asked."""
    backup = FakeModel([Emit((HELLO, STOP))], name="b")
    model, noted = chain(FakeModel([FailOnEnter(err(kind))], name="a"), backup)
    with pytest.raises(ModelError) as raised:
        await collect(model)
    assert raised.value.kind is kind
    assert backup.started == []
    assert noted == []


async def test_a_failure_after_the_first_event_stands() -> None:
    """Once a delta went out the answer is the primary's: its failure is raised and no other model is asked."""
    backup = FakeModel([Emit((HELLO, STOP))], name="b")
    model, noted = chain(FakeModel([Emit((HELLO,), error=err(ModelFailureKind.TRANSPORT))], name="a"), backup)
    seen: list[ModelEvent] = []
    with pytest.raises(ModelError) as raised:
        async with model.stream(REQUEST) as events:
            async for event in events:
                seen.append(event)
    assert raised.value.kind is ModelFailureKind.TRANSPORT
    assert seen == [HELLO]
    assert backup.started == []
    assert noted == []


async def test_every_model_failing_fails_with_each_message() -> None:
    """The chain's failure has the last kind and hint, and names every model with what it said."""
    first = FakeModel([FailOnEnter(err(ModelFailureKind.UNAVAILABLE))], name="a")
    second = FakeModel([FailOnEnter(err(ModelFailureKind.RATE_LIMITED, retry_after=3.0))], name="b")
    model, noted = chain(first, second)
    with pytest.raises(ModelError) as raised:
        await collect(model)
    assert raised.value.kind is ModelFailureKind.RATE_LIMITED
    assert raised.value.retry_after == 3.0
    assert "'a': fake unavailable" in raised.value.message
    assert "'b': fake rate_limited" in raised.value.message
    assert len(noted) == 1


async def test_the_primary_answer_is_passed_through_untouched() -> None:
    """When the primary answers, its events (usage included) come through as they are, unmarked."""
    model, _ = chain(FakeModel([Emit((HELLO, USAGE, STOP))], name="a"), FakeModel([], name="b"))
    assert await collect(model) == [HELLO, USAGE, STOP]


async def test_a_fallback_without_usage_still_says_it_answered() -> None:
    """A fallback that reports no usage gets a usage naming it, its tokens counted as unreported, before the finish."""
    model, _ = chain(
        FakeModel([FailOnEnter(err(ModelFailureKind.UNAVAILABLE))], name="a"),
        FakeModel([Emit((HELLO, STOP))], name="b"),
    )
    assert await collect(model) == [HELLO, ModelUsage(Usage(unreported_requests=1), model="b"), STOP]


async def test_cancelling_while_the_fallback_is_awaited_ends_cleanly(autojump_clock: object) -> None:
    """A cancellation while the fallback hangs ends the call without an error; both streams are closed."""
    primary = FakeModel([FailOnEnter(err(ModelFailureKind.UNAVAILABLE))], name="a")
    backup = FakeModel([Emit(hang=True)], name="b")
    model, _ = chain(primary, backup)
    with trio.move_on_after(1.0) as scope:
        await collect(model)
    assert scope.cancelled_caught
    assert (primary.closed, backup.closed) == (1, 1)


def test_the_chain_is_a_model_named_after_its_primary() -> None:
    """FallbackModel satisfies the Model protocol and takes the primary's name."""
    model = FallbackModel(FakeModel([], name="a"), FakeModel([], name="b"))
    assert isinstance(model, Model)
    assert model.name == "a"
    assert [member.name for member in model.models] == ["a", "b"]


def test_definitions_are_checked_when_built() -> None:
    """A chain of one, a member that is not a Model, and an unknown kind are refused, naming what is wrong."""
    with pytest.raises(TypeError, match="at least one model to fall back to"):
        FallbackModel(FakeModel([]))
    with pytest.raises(TypeError, match="fallback 1 must be a Model"):
        FallbackModel(FakeModel([]), "gpt-5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="fallback_on: got 'flaky'"):
        FallbackModel(FakeModel([]), FakeModel([]), fallback_on=["flaky"])


async def test_fallback_on_takes_members_or_their_value_strings() -> None:
    """`fallback_on` accepts the kinds' value strings: 'refused' moves on, 'unavailable' (not listed) stands."""
    model = FallbackModel(FakeModel([], name="a"), FakeModel([], name="b"), fallback_on=["refused"])
    assert model.fallback_on == frozenset({ModelFailureKind.REFUSED})
    backup = FakeModel([Emit((HELLO, STOP))], name="b")
    stands = FallbackModel(
        FakeModel([FailOnEnter(err(ModelFailureKind.UNAVAILABLE))], name="a"), backup, fallback_on="refused"
    )
    with pytest.raises(ModelError):
        await collect(stands)
    assert backup.started == []
