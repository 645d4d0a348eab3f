"""The fallback chain's law: an answer comes whole from one model, the first that started answering."""

from __future__ import annotations

import trio
from hypothesis import given, strategies as st
from tests.models.scripted_attempts import REQUEST, STOP, Attempt, Emit, FailOnEnter, FakeModel

from helikon_fc.core import ModelEvent, ModelFailureKind, ModelFinish, ModelTextDelta, ModelUsage, Usage
from helikon_fc.models import FallbackModel, ModelError
from helikon_fc.models.retry import RETRYABLE


def _attempts(index: int) -> st.SearchStrategy[Attempt]:
    """One model's single call: it fails to start, fails as its first item, or streams (and may break after)."""
    kinds = st.sampled_from(list(ModelFailureKind))
    errors = kinds.map(lambda kind: ModelError(kind, f"{kind.value} from model {index}"))
    deltas = st.lists(st.sampled_from(["a", "b", "c"]).map(ModelTextDelta), min_size=1, max_size=3)
    usage = st.sampled_from([(), (ModelUsage(Usage(input_tokens=index + 1)),)])
    streams = st.builds(
        lambda events, used, broken: Emit((*events, *used), error=broken) if broken else Emit((*events, *used, STOP)),
        deltas,
        usage,
        st.none() | errors,
    )
    return st.one_of(errors.map(FailOnEnter), errors.map(lambda error: Emit(error=error)), streams)


@st.composite
def chains(draw: st.DrawFn) -> list[FakeModel]:
    """Two to four models, each with one scripted call."""
    size = draw(st.integers(min_value=2, max_value=4))
    return [FakeModel([draw(_attempts(index))], name=f"m{index}") for index in range(size)]


def _starts(attempt: Attempt) -> bool:
    """Whether this call delivers an event before any failure."""
    return isinstance(attempt, Emit) and bool(attempt.events)


async def _play(model: FallbackModel) -> tuple[list[ModelEvent], ModelError | None]:
    seen: list[ModelEvent] = []
    try:
        async with model.stream(REQUEST) as events:
            async for event in events:
                seen.append(event)
    except ModelError as error:
        return seen, error
    return seen, None


@given(chains())
def test_an_answer_comes_whole_from_the_first_model_that_started_answering(models: list[FakeModel]) -> None:
    """The chain asks models in order until one streams an event or fails in a way not listed; what the caller
    sees is that one model's stream alone (a fallback's usage marked with its name), never two models' events."""
    seen, error = trio.run(_play, FallbackModel(*models))
    answering = next((index for index, model in enumerate(models) if _starts(model.attempts[0])), None)
    stopped = next(
        (
            index
            for index, model in enumerate(models)
            if not _starts(model.attempts[0]) and _failure(model.attempts[0]).kind not in RETRYABLE
        ),
        None,
    )
    asked = [index for index, model in enumerate(models) if model.started]
    if answering is not None and (stopped is None or answering < stopped):
        assert asked == list(range(answering + 1))
        script = models[answering].attempts[0]
        assert isinstance(script, Emit)
        texts = [event for event in seen if isinstance(event, ModelTextDelta)]
        assert texts == [event for event in script.events if isinstance(event, ModelTextDelta)]
        usages = [event for event in seen if isinstance(event, ModelUsage)]
        assert all(usage.model == (None if answering == 0 else f"m{answering}") for usage in usages)
        assert error is script.error
        assert (seen[-1] == STOP) == (script.error is None)
        if answering > 0 and script.error is None:
            assert usages, "a fallback's answer says which model gave it"
    else:
        last = stopped if stopped is not None else len(models) - 1
        assert asked == list(range(last + 1))
        assert seen == []
        assert error is not None
        assert error.kind is _failure(models[last].attempts[0]).kind
        assert not any(isinstance(event, ModelFinish) for event in seen)


def _failure(attempt: Attempt) -> ModelError:
    """The failure of a call that delivered nothing."""
    failure = attempt.error
    assert failure is not None
    return failure
