"""What both OpenAI stream translators share: the held-back finish, usage, refusals and the end of a turn."""

from __future__ import annotations

import attrs

from ..core import FinishReason, ModelEvent, ModelFailureKind, ModelFinish, ModelUsage, Usage
from ..models._wire_json import JsonMap, get_int, get_map
from ..models.protocol import ModelError
from ._tool_calls import ToolCallAssembler

_FINISH_REASONS = {
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "max_output_tokens": FinishReason.LENGTH,
    "tool_calls": FinishReason.TOOL_CALLS,
    "content_filter": FinishReason.CONTENT_FILTER,
}


def finish_for(raw: str) -> ModelFinish:
    """The finish for a provider's stop reason; unknown words (``function_call`` too) become ``OTHER``."""
    reason = _FINISH_REASONS.get(raw)
    return ModelFinish(reason) if reason is not None else ModelFinish(FinishReason.OTHER, raw)


def usage_from(
    usage: JsonMap, *, input_key: str, output_key: str, input_details: str, output_details: str
) -> ModelUsage:
    """A usage snapshot from an OpenAI usage object (the two APIs name the same fields differently)."""
    return ModelUsage(
        Usage(
            input_tokens=get_int(usage, input_key),
            output_tokens=get_int(usage, output_key),
            cached_input_tokens=get_int(get_map(usage, input_details), "cached_tokens"),
            reasoning_tokens=get_int(get_map(usage, output_details), "reasoning_tokens"),
            requests=1,
        )
    )


UNREPORTED = ModelUsage(Usage(requests=1, unreported_requests=1))
"""The usage of a turn whose server sent no usage object: not "0 tokens", but "not reported"."""


@attrs.define
class TurnState:
    """One turn's bookkeeping. The finish is held until the end of the body, so trailing usage precedes it."""

    calls: ToolCallAssembler = attrs.Factory(ToolCallAssembler)
    stop: ModelFinish | None = None
    refusal: list[str] = attrs.Factory(list)
    answered: bool = False
    usage_seen: bool = False
    """Whether the server reported usage; if not, `end` says so with an unreported usage."""

    def end(self) -> list[ModelEvent]:
        """The body ended (cleanly, or broken after the stop reason): the last events of the turn.

        A turn the server reported no usage for gets `UNREPORTED` just before its finish.

        Raises:
            ModelError: ``TRANSPORT`` when no stop reason came (the stream was cut short), or
                ``REFUSED`` when the model answered only with a refusal.
        """
        if self.stop is None:
            raise ModelError(ModelFailureKind.TRANSPORT, "the stream ended before the model's stop reason")
        events = self.calls.flush()
        if self.refusal and not self.answered and not len(self.calls):
            raise ModelError(ModelFailureKind.REFUSED, "the model refused: " + "".join(self.refusal))
        if not self.usage_seen:
            events.append(UNREPORTED)
        events.append(self.stop)
        return events
