"""`ScriptedModel` and the turn builders: the streams each turn kind produces, latency, exhaustion, requests."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence

import pytest
import trio
import trio.testing

from helikon_fc.core import (
    Conversation,
    FinishReason,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelRequest,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    ToolCall,
    Usage,
    UserMessage,
    assemble_response,
)
from helikon_fc.models import Model, ModelError
from helikon_fc.testing import (
    DEFAULT_USAGE,
    ScriptedModel,
    ScriptExhausted,
    broken,
    call,
    call_tools,
    fail,
    pause,
    raw,
    reply,
)


def request(text: str = "hi") -> ModelRequest:
    return ModelRequest(instructions=None, items=Conversation([UserMessage(text)]))


async def drain(model: Model, req: ModelRequest | None = None) -> list[ModelEvent]:
    async with model.stream(req or request()) as events:
        return [event async for event in events]


def assert_well_formed(events: Sequence[ModelEvent]) -> None:
    """The `Model` stream rules: one finish, last; usage before it; each call named exactly once."""
    finishes = [i for i, event in enumerate(events) if isinstance(event, ModelFinish)]
    assert finishes == [len(events) - 1]
    assert any(isinstance(event, ModelUsage) for event in events[:-1])
    names: dict[str, int] = {}
    for event in events:
        if isinstance(event, ModelToolCallDelta):
            names.setdefault(event.call_id, 0)
            names[event.call_id] += event.name is not None
    assert all(count == 1 for count in names.values()), names


def test_scripted_model_satisfies_the_model_protocol() -> None:
    """A `ScriptedModel` is a `Model`."""
    assert isinstance(ScriptedModel([]), Model)


async def test_reply_streams_several_text_deltas_then_usage_then_stop() -> None:
    """Scripted text streams word by word, then the default usage, then exactly one STOP finish."""
    events = await drain(ScriptedModel([reply("The budget looks fine this month.")]))
    assert_well_formed(events)
    texts = [event.text for event in events if isinstance(event, ModelTextDelta)]
    assert texts == ["The", " budget", " looks", " fine", " this", " month."]
    assert events[-2:] == [ModelUsage(DEFAULT_USAGE), ModelFinish(FinishReason.STOP)]
    assert DEFAULT_USAGE == Usage(input_tokens=10, output_tokens=5)


async def test_reply_keeps_every_whitespace_character() -> None:
    """The deltas join back to exactly the scripted text, odd whitespace included."""
    text = "  two  spaces\nnew line\t tab "
    response = assemble_response(await drain(ScriptedModel([reply(text)])))
    assert response.text == text


async def test_reply_with_reasoning_and_usage() -> None:
    """Reasoning streams before the text; a given usage replaces the default."""
    usage = Usage(input_tokens=120, output_tokens=8)
    events = await drain(ScriptedModel([reply("ok then", reasoning="think hard", usage=usage)]))
    assert_well_formed(events)
    kinds = [type(event).__name__ for event in events]
    assert kinds == [
        "ModelReasoningDelta",
        "ModelReasoningDelta",
        "ModelTextDelta",
        "ModelTextDelta",
        "ModelUsage",
        "ModelFinish",
    ]
    assert events[0] == ModelReasoningDelta("think")
    assert events[-2] == ModelUsage(usage)


async def test_empty_reply_has_no_text_deltas() -> None:
    """`reply("")` streams only usage and finish."""
    assert await drain(ScriptedModel([reply("")])) == [ModelUsage(DEFAULT_USAGE), ModelFinish(FinishReason.STOP)]


async def test_call_tools_streams_each_call_named_once_with_arguments_in_two_fragments() -> None:
    """Each call's name appears on its first delta only; arguments arrive in two fragments; TOOL_CALLS finish."""
    model = ScriptedModel([call_tools(call("get_weather", city="Oslo"), call("get_time", zone="UTC"))])
    events = await drain(model)
    assert_well_formed(events)
    deltas = [event for event in events if isinstance(event, ModelToolCallDelta)]
    assert [(d.call_id, d.name) for d in deltas] == [
        ("call_0_0", "get_weather"),
        ("call_0_0", None),
        ("call_0_1", "get_time"),
        ("call_0_1", None),
    ]
    assert events[-1] == ModelFinish(FinishReason.TOOL_CALLS)
    response = assemble_response(events)
    assert response.tool_calls == (
        ToolCall("call_0_0", "get_weather", '{"city":"Oslo"}'),
        ToolCall("call_0_1", "get_time", '{"zone":"UTC"}'),
    )


async def test_call_tools_with_text_streams_the_text_first() -> None:
    """Text on a tool turn streams before the calls."""
    events = await drain(ScriptedModel([call_tools(call("f"), text="Let me check.")]))
    assert_well_formed(events)
    assert events[0] == ModelTextDelta("Let")
    assert assemble_response(events).text == "Let me check."


def test_call_arguments_are_compact_json_in_order() -> None:
    """`call` serializes keyword arguments as compact JSON, keeping their order and non-ASCII text."""
    scripted = call("plan", b=[1, 2], a={"x": None}, city="Zürich")
    assert scripted.arguments == '{"b":[1,2],"a":{"x":null},"city":"Zürich"}'
    assert json.loads(scripted.arguments) == {"b": [1, 2], "a": {"x": None}, "city": "Zürich"}


def test_call_rejects_arguments_that_are_not_json() -> None:
    """A non-JSON argument is a clear `TypeError` naming the call."""
    with pytest.raises(TypeError, match=re.escape("call('f', ...): arguments must be JSON")):
        call("f", when=object())
    with pytest.raises(TypeError, match="must be JSON"):
        call("f", x=math.nan)


def test_call_name_and_arguments_cannot_clash() -> None:
    """`name` is positional-only, so a tool argument may itself be called `name`."""
    assert call("greet", name="Ada").arguments == '{"name":"Ada"}'


async def test_explicit_call_ids_and_raw_arguments() -> None:
    """`with_id` fixes the call id; `with_raw_arguments` streams malformed JSON verbatim."""
    events = await drain(ScriptedModel([call_tools(call("f").with_id("mine").with_raw_arguments('{"a": '))]))
    assert assemble_response(events).tool_calls == (ToolCall("mine", "f", '{"a": '),)


async def test_call_without_arguments_streams_braces() -> None:
    """A call with no arguments streams ``{}``."""
    events = await drain(ScriptedModel([call_tools(call("now"))]))
    assert assemble_response(events).tool_calls == (ToolCall("call_0_0", "now", "{}"),)


def test_call_tools_rejects_bad_input() -> None:
    """No calls, a non-call, or duplicate explicit ids fail when the turn is built."""
    with pytest.raises(ValueError, match="at least one call"):
        call_tools()
    with pytest.raises(TypeError, match=re.escape("call(...) values")):
        call_tools("f")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unique"):
        call_tools(call("f").with_id("x"), call("g").with_id("x"))


def test_negative_or_nan_latency_is_rejected() -> None:
    """Latency must be a number of seconds >= 0."""
    with pytest.raises(ValueError, match="latency"):
        reply("x", latency=-1)
    with pytest.raises(ValueError, match="latency"):
        fail("x", latency=math.nan)
    with pytest.raises(ValueError, match="seconds"):
        pause(-0.5)


def test_turns_are_frozen_values() -> None:
    """Turns compare by value and cannot be changed."""
    assert reply("a", latency=1) == reply("a", latency=1)
    assert call_tools(call("f", x=1)) == call_tools(call("f", x=1))
    turn = reply("a")
    with pytest.raises(AttributeError):
        turn.text = "b"  # type: ignore[misc]


def test_script_must_hold_turns() -> None:
    """A script entry that is not a turn is rejected when the model is built."""
    with pytest.raises(TypeError, match="turn 1 is 'oops'; build turns with reply"):
        ScriptedModel([reply("a"), "oops"])  # type: ignore[list-item]


async def test_turns_are_answered_in_order_and_ids_count_turns(autojump_clock: trio.testing.MockClock) -> None:
    """Each request takes the next turn; default call ids carry the turn index."""
    model = ScriptedModel([call_tools(call("f")), call_tools(call("g")), reply("done")])
    first = assemble_response(await drain(model))
    second = assemble_response(await drain(model))
    third = assemble_response(await drain(model))
    assert first.tool_calls[0].call_id == "call_0_0"
    assert second.tool_calls[0] == ToolCall("call_1_0", "g", "{}")
    assert third.text == "done"


async def test_latency_is_virtual_time_before_the_first_event(autojump_clock: trio.testing.MockClock) -> None:
    """`latency` delays the first event by exactly that many virtual seconds."""
    model = ScriptedModel([reply("slow answer", latency=2.5)])
    start = trio.current_time()
    async with model.stream(request()) as events:
        first = await events.__anext__()
        assert trio.current_time() - start == 2.5
        rest = [event async for event in events]
    assert first == ModelTextDelta("slow")
    assert trio.current_time() - start == 2.5
    assert rest[-1] == ModelFinish(FinishReason.STOP)


async def test_latency_is_cancellable(autojump_clock: trio.testing.MockClock) -> None:
    """A slow turn is cut off by a cancel scope at the scope's deadline."""
    model = ScriptedModel([reply("never seen", latency=10)])
    start = trio.current_time()
    with trio.move_on_after(3) as scope:
        await drain(model)
    assert scope.cancelled_caught
    assert trio.current_time() - start == 3


async def test_script_exhaustion_names_the_model_and_the_turn() -> None:
    """Running past the script raises `ScriptExhausted`, a `ModelError` of kind OTHER naming model and turn."""
    model = ScriptedModel([reply("one"), reply("two"), reply("three")], name="budget")
    for _ in range(3):
        await drain(model)
    with pytest.raises(ScriptExhausted) as caught:
        await drain(model)
    error = caught.value
    assert isinstance(error, ModelError)
    assert error.kind is ModelFailureKind.OTHER
    assert (error.model, error.turn, error.script_length) == ("budget", 3, 3)
    assert str(error).startswith("scripted model 'budget' has no turn 3: its script has 3 turns")


async def test_empty_script_fails_on_the_first_request() -> None:
    """A model with no turns fails at once, saying its script has 0 turns."""
    with pytest.raises(ScriptExhausted, match="has no turn 0: its script has 0 turns"):
        await drain(ScriptedModel([], name="empty"))


async def test_requests_are_recorded_in_order() -> None:
    """`requests` holds every request received, the one that exhausted the script included."""
    model = ScriptedModel([reply("a")])
    first, second = request("first"), request("second")
    await drain(model, first)
    with pytest.raises(ScriptExhausted):
        await drain(model, second)
    assert model.requests == (first, second)


def test_each_trio_run_starts_the_script_from_the_top() -> None:
    """A new `trio.run` replays the script from turn 0; `requests` shows the latest run's."""
    model = ScriptedModel([reply("only turn")])

    async def once(text: str) -> str:
        return assemble_response(await drain(model, request(text))).text

    assert trio.run(once, "run one") == "only turn"
    assert trio.run(once, "run two") == "only turn"
    assert model.requests == (request("run two"),)


async def test_concurrent_requests_take_turns_in_call_order(autojump_clock: trio.testing.MockClock) -> None:
    """Two tasks sharing one model get the turns in the order they called it, whatever the latencies."""
    model = ScriptedModel([reply("first", latency=5), reply("second", latency=1)])
    answers: dict[str, tuple[str, float]] = {}

    async def ask(who: str) -> None:
        text = assemble_response(await drain(model, request(who))).text
        answers[who] = (text, trio.current_time())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ask, "a")
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(ask, "b")
    assert answers == {"a": ("first", 5.0), "b": ("second", 1.0)}
    assert [req.items[0] for req in model.requests] == [UserMessage("a"), UserMessage("b")]


@pytest.mark.parametrize(
    ("error", "kind", "message", "retry_after"),
    [
        (ModelError(ModelFailureKind.RATE_LIMITED, "slow down", retry_after=2.0), "rate_limited", "slow down", 2.0),
        (ModelFailureKind.UNAVAILABLE, "unavailable", "scripted model failure (unavailable)", None),
        ("it broke", "other", "it broke", None),
    ],
)
async def test_fail_raises_model_error_before_any_event(
    error: ModelError | ModelFailureKind | str, kind: str, message: str, retry_after: float | None
) -> None:
    """`fail` makes entering the stream raise a `ModelError` with the scripted kind, message and hint."""
    model = ScriptedModel([fail(error)])
    with pytest.raises(ModelError) as caught:
        async with model.stream(request()):
            pytest.fail("the stream must not open")
    assert caught.value.kind.value == kind
    assert caught.value.message == message
    assert caught.value.retry_after == retry_after


async def test_fail_raises_a_fresh_error_each_run() -> None:
    """The same `fail` turn played twice raises two distinct exception objects."""
    turn = fail("boom")
    errors = []
    for _ in range(2):
        with pytest.raises(ModelError) as caught:
            await drain(ScriptedModel([turn]))
        errors.append(caught.value)
    assert errors[0] is not errors[1]


async def test_fail_after_latency(autojump_clock: trio.testing.MockClock) -> None:
    """A failure with latency raises after that much virtual time."""
    start = trio.current_time()
    with pytest.raises(ModelError):
        await drain(ScriptedModel([fail(ModelFailureKind.TRANSPORT, latency=4)]))
    assert trio.current_time() - start == 4


async def test_raw_streams_exactly_the_given_events(autojump_clock: trio.testing.MockClock) -> None:
    """`raw` adds nothing: no usage, no finish; pauses cost virtual time between events."""
    start = trio.current_time()
    model = ScriptedModel([raw(ModelTextDelta("Hel"), pause(1.5), ModelTextDelta("lo"))])
    seen: list[tuple[ModelEvent, float]] = []
    async with model.stream(request()) as events:
        async for event in events:
            seen.append((event, trio.current_time() - start))
    assert seen == [(ModelTextDelta("Hel"), 0.0), (ModelTextDelta("lo"), 1.5)]


async def test_raw_with_no_events_is_a_model_that_returns_nothing() -> None:
    """`raw()` opens and ends at once."""
    assert await drain(ScriptedModel([raw()])) == []


async def test_raw_may_break_the_stream_rules() -> None:
    """`raw` streams rule-breaking sequences verbatim, for robustness tests."""
    events = (ModelFinish(FinishReason.STOP), ModelTextDelta("after finish"), ModelFinish(FinishReason.LENGTH))
    assert await drain(ScriptedModel([raw(*events)])) == list(events)


async def test_broken_fails_mid_stream_after_its_events() -> None:
    """`broken` streams its events, then raises `ModelError` from the iterator, with no finish."""
    model = ScriptedModel([broken(ModelTextDelta("partial"), error=ModelFailureKind.TRANSPORT)])
    seen: list[ModelEvent] = []
    with pytest.raises(ModelError) as caught:
        async with model.stream(request()) as events:
            async for event in events:
                seen.append(event)
    assert seen == [ModelTextDelta("partial")]
    assert caught.value.kind is ModelFailureKind.TRANSPORT
    assert caught.value.message == "stream broke mid-turn (transport)"


async def test_leaving_the_stream_early_ends_the_iterator() -> None:
    """After the block is left, the iterator yields nothing more."""
    model = ScriptedModel([reply("one two three four")])
    async with model.stream(request()) as events:
        assert await events.__anext__() == ModelTextDelta("one")
    assert [event async for event in events] == []


async def test_cancelled_stream_ends_without_finish(autojump_clock: trio.testing.MockClock) -> None:
    """Cancelled mid-stream, a scripted stream yields no finish."""
    model = ScriptedModel([raw(ModelTextDelta("a"), pause(10), ModelFinish(FinishReason.STOP))])
    seen: list[ModelEvent] = []
    with trio.move_on_after(1):
        async with model.stream(request()) as events:
            async for event in events:
                seen.append(event)
    assert seen == [ModelTextDelta("a")]


def test_repr_names_the_model() -> None:
    """The repr shows the script length and name."""
    assert repr(ScriptedModel([reply("a")], name="x")) == "ScriptedModel(<1 turns>, name='x')"


async def test_every_event_is_a_cancellation_point() -> None:
    """A stream cancelled between two events stops there, with no finish."""
    model = ScriptedModel([reply("one two three")])
    seen: list[ModelEvent] = []
    with trio.CancelScope() as scope:
        async with model.stream(request()) as events:
            async for event in events:
                seen.append(event)
                scope.cancel()
    assert seen == [ModelTextDelta("one")]


def test_raw_and_broken_take_only_events_and_pauses() -> None:
    """A step that is not a `ModelEvent` or `pause` is rejected when the turn is built."""
    with pytest.raises(TypeError, match=re.escape("raw() takes ModelEvent values and pause(...), got 'Hi'")):
        raw("Hi")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=re.escape("broken() takes ModelEvent values")):
        broken(ModelTextDelta("a"), 3)  # type: ignore[arg-type]


async def test_a_bounded_log_still_counts_every_turn() -> None:
    """With `keep_requests=1` only the last request is kept, and each request still takes the next turn."""
    model = ScriptedModel([reply("one"), reply("two"), reply("three")], keep_requests=1)
    texts = []
    for word in ("a", "b", "c"):
        events = await drain(model, request(word))
        texts.append("".join(e.text for e in events if isinstance(e, ModelTextDelta)))
    assert texts == ["one", "two", "three"]
    assert [req.items[-1] for req in model.requests] == [UserMessage("c")]
    with pytest.raises(ScriptExhausted, match="no turn 3"):
        await drain(model)


def test_a_negative_keep_requests_is_refused() -> None:
    """`keep_requests` below 0 is refused when the model is built, naming the argument."""
    with pytest.raises(ValueError, match="keep_requests must be at least 0"):
        ScriptedModel([reply("x")], keep_requests=-1)
