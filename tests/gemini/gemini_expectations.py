"""What each Gemini fixture must produce: its events exactly, or the `ModelError` it must raise."""

from __future__ import annotations

import attrs

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    Usage,
)


@attrs.frozen
class Expected:
    """The events before the end (all of them when `error` is None), and the error's kind and words."""

    events: tuple[ModelEvent, ...]
    error: ModelFailureKind | None = None
    words: str = ""
    retry_after: float | None = None


def usage(prompt: int, output: int, *, cached: int = 0, reasoning: int = 0) -> ModelUsage:
    return ModelUsage(
        Usage(
            input_tokens=prompt,
            output_tokens=output,
            cached_input_tokens=cached,
            reasoning_tokens=reasoning,
            requests=1,
        )
    )


U = usage(9, 4)
UNREPORTED = ModelUsage(Usage(requests=1, unreported_requests=1))
STOP = ModelFinish(FinishReason.STOP)
CALLS = ModelFinish(FinishReason.TOOL_CALLS)

STREAMED: dict[str, Expected] = {
    "text_stream": Expected((ModelTextDelta("Hello"), ModelTextDelta(", world!"), U, STOP)),
    "truncated_after_stop": Expected((ModelTextDelta("The answer is 42."), U, STOP)),
    "truncated_before_stop": Expected((ModelTextDelta("The answer is"),), ModelFailureKind.TRANSPORT),
    "error_mid_stream": Expected((ModelTextDelta("Partial"),), ModelFailureKind.UNAVAILABLE, "overloaded"),
    "error_after_stop": Expected((ModelTextDelta("All done"),), ModelFailureKind.UNAVAILABLE, "INTERNAL"),
    "parallel_tool_calls": Expected(
        (
            ModelToolCallDelta("<0>", "get_weather", '{"city":"Paris"}'),
            ModelToolCallDelta("<1>", "get_time", "{}"),
            usage(31, 31, reasoning=19),
            CALLS,
        )
    ),
    "tool_calls_with_ids": Expected(
        (
            ModelToolCallDelta("fc-9a1", "get_weather", '{"city":"Paris"}'),
            ModelToolCallDelta("fc-9a2", "get_weather", '{"city":"Oslo"}'),
            U,
            CALLS,
        )
    ),
    "no_usage": Expected((ModelTextDelta("Hello"), UNREPORTED, STOP)),
    "reasoning": Expected(
        (
            ModelReasoningDelta("**Weighing it up**\nThe user wants a number."),
            ModelReasoningDelta(" Forty-two fits."),
            ModelTextDelta("It is "),
            ModelTextDelta("42."),
            usage(120, 45, cached=100, reasoning=40),
            STOP,
        )
    ),
    "signature_carrier": Expected((ModelTextDelta("Sunny"), ModelTextDelta(" all day."), U, STOP)),
    "signed_thought": Expected((ModelReasoningDelta("Checking the sky."), ModelTextDelta("Sunny."), U, STOP)),
    "max_tokens": Expected((ModelTextDelta("The first part of a long"), U, ModelFinish(FinishReason.LENGTH))),
    "safety_blocked": Expected((usage(9, 0),), ModelFailureKind.REFUSED, "blocked (SAFETY)"),
    "safety_after_text": Expected(
        (ModelTextDelta("Here is how"), U, ModelFinish(FinishReason.CONTENT_FILTER, "SAFETY"))
    ),
    "recitation": Expected((U,), ModelFailureKind.REFUSED, "blocked (RECITATION)"),
    "malformed_function_call": Expected(
        (U,), ModelFailureKind.OTHER, "(MALFORMED_FUNCTION_CALL): Malformed function call: get_weather{city: Paris"
    ),
    "prompt_blocked": Expected((), ModelFailureKind.REFUSED, "the prompt was blocked (PROHIBITED_CONTENT)"),
    "unknown_finish": Expected((ModelTextDelta("Je"), U, ModelFinish(FinishReason.OTHER, "LANGUAGE"))),
    "structured_output": Expected(
        (ModelTextDelta('{"city": "Paris", "temp_c": 18, '), ModelTextDelta('"summary": "Sunny and mild"}'), U, STOP)
    ),
    "spending_call": Expected(
        (ModelToolCallDelta("<0>", "get_spending", '{"category":"dining"}'), usage(40, 8), CALLS)
    ),
    "spending_answer": Expected((ModelTextDelta("You spent $212 on dining."), usage(60, 9), STOP)),
}
"""Fixtures served to a streaming model. ``<n>`` stands for the n-th synthetic call id of the turn."""

WHOLE: dict[str, Expected] = {
    "whole_text": Expected((ModelTextDelta("Hello, world!"), U, STOP)),
    "whole_tool_calls": Expected(
        (
            ModelToolCallDelta("<0>", "get_weather", '{"city":"Paris"}'),
            ModelToolCallDelta("<1>", "get_time", "{}"),
            U,
            CALLS,
        )
    ),
    "whole_no_usage": Expected((ModelTextDelta("Hello"), UNREPORTED, STOP)),
}
"""Fixtures served to a ``stream=False`` model (``generateContent``)."""

HTTP_ERRORS: dict[str, Expected] = {
    "rate_limited_429": Expected((), ModelFailureKind.RATE_LIMITED, "HTTP 429 RESOURCE_EXHAUSTED", retry_after=37.0),
    "server_error_500": Expected((), ModelFailureKind.UNAVAILABLE, "HTTP 500 INTERNAL"),
    "unavailable_503": Expected((), ModelFailureKind.UNAVAILABLE, "HTTP 503 UNAVAILABLE"),
    "invalid_argument_400": Expected((), ModelFailureKind.OTHER, "contents is not specified"),
    "context_too_long_400": Expected((), ModelFailureKind.CONTEXT_LENGTH, "exceeds the maximum number of tokens"),
    "rate_limited_short_429": Expected((), ModelFailureKind.RATE_LIMITED, "exhausted", retry_after=0.02),
    "permission_denied_403": Expected((), ModelFailureKind.REFUSED, "HTTP 403 PERMISSION_DENIED"),
}
"""Fixtures that fail the call itself: the error is raised on entering the stream."""

PARKED = ("held_open", "held_open_after_stop")
"""Fixtures that hold the stream open (the cancellation tests and the conformance suite serve them)."""

END_TO_END = ("e2e_triage_weather", "e2e_triage_handoff", "e2e_reporter_report", "e2e_reporter_incomplete")
"""Fixtures the end-to-end agent runs serve (``test_gemini_end_to_end.py`` checks what they lead to)."""
