"""What each wire fixture must turn into, for both APIs, and a helper that replays one through `OpenAIModel`."""

from __future__ import annotations

from typing import Literal

import attrs
from tests.openai.openai_wire import Api, WireServer

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelRequest,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    Usage,
    UserMessage,
)
from helikon_fc.core.conversation import Conversation
from helikon_fc.models import ModelError
from helikon_fc.openai import OpenAIModel

Phase = Literal["enter", "iterate"]


@attrs.frozen(kw_only=True)
class Expected:
    """The events a fixture yields, then the failure it raises (if any), and where it is raised."""

    events: tuple[ModelEvent, ...] = ()
    error: ModelFailureKind | None = None
    phase: Phase | None = None
    retry_after: float | None = None
    stream: bool = True
    """Whether the fixture is replayed by a streaming model (``False``: ``OpenAIModel.chat(stream=False)``)."""


@attrs.frozen(kw_only=True)
class Outcome:
    """What replaying a fixture produced."""

    events: tuple[ModelEvent, ...]
    error: ModelError | None
    phase: Phase | None


def usage(i: int, o: int, *, cached: int = 0, reasoning: int = 0) -> ModelUsage:
    return ModelUsage(
        Usage(input_tokens=i, output_tokens=o, cached_input_tokens=cached, reasoning_tokens=reasoning, requests=1)
    )


def text(t: str) -> ModelTextDelta:
    return ModelTextDelta(t)


def finish(reason: FinishReason, raw: str | None = None) -> ModelFinish:
    return ModelFinish(reason, raw)


def tc(call_id: str, name: str | None, args: str) -> ModelToolCallDelta:
    return ModelToolCallDelta(call_id, name, args)


NOT_REPORTED = ModelUsage(Usage(requests=1, unreported_requests=1))
"""The usage of a turn the server sent no usage for."""
STOP = finish(FinishReason.STOP)
TOOLS = finish(FinishReason.TOOL_CALLS)

_SHARED_ERRORS: dict[str, Expected] = {
    "rate_limited_429": Expected(error=ModelFailureKind.RATE_LIMITED, phase="enter", retry_after=6.5),
    "rate_limited_seconds_429": Expected(error=ModelFailureKind.RATE_LIMITED, phase="enter", retry_after=2.0),
    "rate_limited_short_429": Expected(error=ModelFailureKind.RATE_LIMITED, phase="enter", retry_after=0.02),
    "server_error_500": Expected(error=ModelFailureKind.UNAVAILABLE, phase="enter"),
    "context_length_400": Expected(error=ModelFailureKind.CONTEXT_LENGTH, phase="enter"),
    "context_size_400_llamacpp": Expected(error=ModelFailureKind.CONTEXT_LENGTH, phase="enter"),
    "unauthorized_401": Expected(error=ModelFailureKind.REFUSED, phase="enter"),
    "refusal": Expected(error=ModelFailureKind.REFUSED, phase="iterate"),
}

_SHARED_STREAMS: dict[str, Expected] = {
    "text_stream": Expected(events=(text("Hello"), text(", world"), text("!"), usage(12, 4, cached=2), STOP)),
    "reasoning": Expected(
        events=(
            ModelReasoningDelta("The user wants "),
            ModelReasoningDelta("a greeting."),
            text("Hi there."),
            usage(20, 9, reasoning=6),
            STOP,
        )
    ),
    "tool_call_fragmented": Expected(
        events=(
            tc("call_Wx81", "get_weather", '{"ci'),
            tc("call_Wx81", None, 'ty": "Pa'),
            tc("call_Wx81", None, 'ris", "unit":'),
            tc("call_Wx81", None, ' "c"}'),
            usage(80, 18),
            TOOLS,
        )
    ),
    "parallel_tool_calls": Expected(
        events=(
            tc("call_A1", "get_weather", '{"city": "Paris"}'),
            tc("call_B2", "get_weather", '{"city": '),
            tc("call_B2", None, '"Oslo"}'),
            tc("call_C3", "get_time", ""),
            usage(90, 40),
            TOOLS,
        )
    ),
}
"""Streams both APIs must translate to the very same provider-neutral events."""

CHAT: dict[str, Expected] = {
    **_SHARED_STREAMS,
    "content_filter": Expected(events=(text("I can"), NOT_REPORTED, finish(FinishReason.CONTENT_FILTER))),
    "unknown_finish": Expected(events=(text("ok"), NOT_REPORTED, finish(FinishReason.OTHER, "function_call"))),
    "truncated_before_stop": Expected(
        events=(text("The answer is"), text(" forty")), error=ModelFailureKind.TRANSPORT, phase="iterate"
    ),
    "truncated_after_stop": Expected(events=(text("Done"), NOT_REPORTED, STOP)),
    "ended_without_done": Expected(events=(text("Once upon a"), usage(5, 3), finish(FinishReason.LENGTH))),
    "error_mid_stream": Expected(events=(text("Partial"),), error=ModelFailureKind.UNAVAILABLE, phase="iterate"),
    "error_after_stop": Expected(events=(text("Complete"),), error=ModelFailureKind.UNAVAILABLE, phase="iterate"),
    "no_usage": Expected(events=(text("Hello"), NOT_REPORTED, STOP)),
    "length_then_context_overflow": Expected(
        events=(text("Once upon a"),), error=ModelFailureKind.CONTEXT_LENGTH, phase="iterate"
    ),
    "whole_text": Expected(
        events=(ModelReasoningDelta("The user wants a greeting."), text("Hi there."), usage(20, 9, reasoning=6), STOP),
        stream=False,
    ),
    "whole_tool_calls": Expected(
        events=(
            tc("call_A1", "get_weather", '{"city": "Paris"}'),
            tc("call_B2", "get_weather", '{"city": "Oslo"}'),
            tc("call_C3", "get_time", ""),
            usage(90, 40),
            TOOLS,
        ),
        stream=False,
    ),
    "whole_no_usage": Expected(events=(text("Hello"), NOT_REPORTED, STOP), stream=False),
    "whole_error_body": Expected(error=ModelFailureKind.UNAVAILABLE, phase="iterate", stream=False),
    **_SHARED_ERRORS,
}

RESPONSES: dict[str, Expected] = {
    **_SHARED_STREAMS,
    "incomplete_length": Expected(events=(text("Once upon a"), usage(5, 3), finish(FinishReason.LENGTH))),
    "content_filter": Expected(events=(text("I can"), usage(5, 2), finish(FinishReason.CONTENT_FILTER))),
    "truncated_before_stop": Expected(
        events=(text("The answer is"), text(" forty")), error=ModelFailureKind.TRANSPORT, phase="iterate"
    ),
    "truncated_after_stop": Expected(events=(text("Done"), usage(7, 1), STOP)),
    "error_mid_stream": Expected(events=(text("Partial"),), error=ModelFailureKind.UNAVAILABLE, phase="iterate"),
    "response_failed": Expected(events=(text("Partial"),), error=ModelFailureKind.RATE_LIMITED, phase="iterate"),
    "error_after_stop": Expected(
        events=(text("Complete"), usage(7, 1)), error=ModelFailureKind.UNAVAILABLE, phase="iterate"
    ),
    **_SHARED_ERRORS,
    "refusal": Expected(events=(usage(9, 8),), error=ModelFailureKind.REFUSED, phase="iterate"),
    "no_usage": Expected(events=(text("Hello"), NOT_REPORTED, STOP)),
    "not_found_404": Expected(error=ModelFailureKind.OTHER, phase="enter"),
}

HELD_OPEN = ("held_open", "held_open_after_stop")
"""The fixtures that park until the client cancels (tested by the cancellation tests)."""

REQUEST = ModelRequest(instructions="Answer briefly.", items=Conversation([UserMessage("What's the weather?")]))


def model_for(api: Api, wire: WireServer, *, stream: bool = True) -> OpenAIModel:
    """A fresh model of `api` pointed at the wire server (`stream`: chat only)."""
    if api == "chat":
        return OpenAIModel.chat("gpt-5-mini", base_url=wire.base_url, stream=stream)
    return OpenAIModel.responses("gpt-5-mini", base_url=wire.base_url)


async def replay(
    api: Api, name: str, wire: WireServer, request: ModelRequest = REQUEST, *, stream: bool = True
) -> Outcome:
    """Serve fixture `name` and stream it through a fresh `OpenAIModel`, noting where any failure surfaced."""
    wire.enqueue(api, name)
    model = model_for(api, wire, stream=stream)
    events: list[ModelEvent] = []
    phase: Phase = "enter"
    try:
        async with model.stream(request) as answer:
            phase = "iterate"
            async for event in answer:
                events.append(event)
    except ModelError as error:
        return Outcome(events=tuple(events), error=error, phase=phase)
    finally:
        await model.aclose()
    return Outcome(events=tuple(events), error=None, phase=None)
