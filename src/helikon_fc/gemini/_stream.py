"""``GenerateContentResponse`` chunks in, provider-neutral `ModelEvent`s out (the rules are `Model`'s docstring).

A streamed answer (``streamGenerateContent?alt=sse``) is a series of SSE frames, each a whole
``GenerateContentResponse``; a non-streamed one (``generateContent``) is one such response. Each
carries parts of ``candidates[0].content``: ``text`` (the answer), ``text`` with ``thought: true``
(the model's thought summary, read as reasoning), and ``functionCall`` (a whole call: name and
``args`` object), any of them possibly with a ``thoughtSignature`` (noted in `ThoughtSignatures`
under the call's id, or under the turn's answer text, for the next request). The last chunk has the
candidate's ``finishReason`` and ``usageMetadata``; ``promptFeedback.blockReason`` says the prompt
itself was blocked (no candidates follow). There is no end marker: the body just ends.

Outcomes, by ``finishReason`` (see ``docs/providers.md``):

- ``STOP`` -> ``ModelFinish(STOP)``, or ``TOOL_CALLS`` when the turn called functions;
- ``MAX_TOKENS`` -> ``LENGTH``;
- ``SAFETY``, ``RECITATION``, ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII``, ``IMAGE_SAFETY``,
  ``IMAGE_PROHIBITED_CONTENT``, ``IMAGE_RECITATION`` -> ``CONTENT_FILTER`` (with the word in
  ``raw``) when the turn produced text or calls before it, else ``ModelError(REFUSED)``: an
  answer withheld entirely is not a success with empty text;
- ``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL``, ``TOO_MANY_TOOL_CALLS`` ->
  ``ModelError(OTHER)`` naming the reason and the API's ``finishMessage`` (the model's call
  could not be read, so there is nothing to run);
- anything else (``LANGUAGE``, ``OTHER``, ``FINISH_REASON_UNSPECIFIED``, new words) -> ``OTHER``
  with the word in ``raw``.

``promptFeedback.blockReason`` -> ``ModelError(REFUSED)`` naming the reason. An ``{"error": ...}``
frame -> the `ModelError` its ``code``/``status`` give. A body that ends before a finish reason ->
``ModelError(TRANSPORT)``.
"""

from __future__ import annotations

import json

import attrs

from ..core import (
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
from ..models._wire_json import JsonMap, get_int, get_list, get_map, get_str
from ..models.protocol import ModelError
from ._errors import stream_error
from ._request import synthetic_call_id
from ._signatures import ThoughtSignatures

FILTERED = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
    }
)
"""Finish reasons that mean a filter withheld (the rest of) the answer."""

MALFORMED = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"})
"""Finish reasons that mean the model's function call could not be used."""

UNREPORTED = ModelUsage(Usage(requests=1, unreported_requests=1))
"""The usage of a turn whose response had no ``usageMetadata``: not "0 tokens", but "not reported"."""


def usage_from(metadata: JsonMap) -> ModelUsage:
    """A usage snapshot from ``usageMetadata``.

    Input: ``promptTokenCount`` (cached tokens included) plus ``toolUsePromptTokenCount``; output:
    ``candidatesTokenCount`` plus ``thoughtsTokenCount`` (Gemini counts thoughts apart, OpenAI within
    the output: the sum keeps `Usage.output_tokens` meaning the same for both); cached input:
    ``cachedContentTokenCount``; reasoning: ``thoughtsTokenCount``.
    """
    thoughts = get_int(metadata, "thoughtsTokenCount")
    return ModelUsage(
        Usage(
            input_tokens=get_int(metadata, "promptTokenCount") + get_int(metadata, "toolUsePromptTokenCount"),
            output_tokens=get_int(metadata, "candidatesTokenCount") + thoughts,
            cached_input_tokens=get_int(metadata, "cachedContentTokenCount"),
            reasoning_tokens=thoughts,
            requests=1,
        )
    )


@attrs.define
class GeminiStreamTranslator:
    """Feed it each ``GenerateContentResponse`` with `feed`, then call `end` when the body ends.

    Args:
        signatures: where the turn's thought signatures are noted, for the next request.
        call_prefix: the start of the ids given to calls that come without one (`synthetic_call_id`).
    """

    signatures: ThoughtSignatures
    call_prefix: str
    stop: str | None = None
    """The candidate's ``finishReason``, once it came."""
    _finish_message: str = ""
    _calls: list[str] = attrs.Factory(list)
    _text: list[str] = attrs.Factory(list)
    _reasoning: list[str] = attrs.Factory(list)
    _text_signature: str | None = None
    _thought_signature: str | None = None
    _usage: ModelUsage | None = None
    _usage_sent: ModelUsage | None = None

    def feed(self, chunk: JsonMap) -> list[ModelEvent]:
        """The events one response chunk yields.

        Raises:
            ModelError: the chunk is an error, or says the prompt was blocked.
        """
        if chunk.get("error") is not None:
            raise stream_error(get_map(chunk, "error"))
        blocked = get_str(get_map(chunk, "promptFeedback"), "blockReason")
        if blocked:
            raise ModelError(ModelFailureKind.REFUSED, f"the prompt was blocked ({blocked})")
        events: list[ModelEvent] = []
        candidates = get_list(chunk, "candidates")
        if candidates and self.stop is None:
            events.extend(self._candidate(candidates[0]))
        metadata = get_map(chunk, "usageMetadata")
        if metadata:
            self._usage = usage_from(metadata)
        if self.stop is not None:
            events.extend(self._pending_usage())
        return events

    def end(self) -> list[ModelEvent]:
        """The body ended: the last events of the turn (its usage, then its finish).

        Raises:
            ModelError: ``TRANSPORT`` when no finish reason came (the stream was cut short),
                ``REFUSED`` or ``OTHER`` for the finish reasons the module docstring lists.
        """
        if self.stop is None:
            raise ModelError(ModelFailureKind.TRANSPORT, "the stream ended before the model's finish reason")
        self._keep_signatures()
        finish = self._finish(self.stop)
        events = self._pending_usage() if self._usage is not None else [UNREPORTED]
        return [*events, finish]

    def _pending_usage(self) -> list[ModelEvent]:
        if self._usage is None or self._usage == self._usage_sent:
            return []
        self._usage_sent = self._usage
        return [self._usage]

    def _candidate(self, candidate: JsonMap) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        for part in get_list(get_map(candidate, "content"), "parts"):
            events.extend(self._part(part))
        reason = get_str(candidate, "finishReason")
        if reason:
            self.stop = reason
            self._finish_message = get_str(candidate, "finishMessage") or ""
        return events

    def _part(self, part: JsonMap) -> list[ModelEvent]:
        signature = get_str(part, "thoughtSignature") or None
        function = part.get("functionCall")
        if isinstance(function, dict):
            return [self._call(get_map(part, "functionCall"), signature)]
        text = get_str(part, "text") or ""
        if part.get("thought") is True:
            self._thought_signature = signature or self._thought_signature
            self._reasoning.append(text)
            return [ModelReasoningDelta(text)] if text else []
        self._text_signature = signature or self._text_signature
        self._text.append(text)
        return [ModelTextDelta(text)] if text else []

    def _call(self, function: JsonMap, signature: str | None) -> ModelEvent:
        call_id = get_str(function, "id") or synthetic_call_id(self.call_prefix, len(self._calls))
        n, base = 2, call_id
        while call_id in self._calls:  # the `Model` rules key calls by id: a repeated one is renamed
            call_id, n = f"{base}#{n}", n + 1
        self._calls.append(call_id)
        if signature is not None:
            self.signatures.note("call", call_id, signature)
        args = function.get("args")
        arguments = json.dumps(args if isinstance(args, dict) else {}, ensure_ascii=False, separators=(",", ":"))
        return ModelToolCallDelta(call_id, get_str(function, "name") or "", arguments)

    def _keep_signatures(self) -> None:
        """Note the answer's signature (a thought part's, when the text had none of its own: thoughts are not
        sent back, so their signature travels on the answer)."""
        signature = self._text_signature or self._thought_signature
        if signature is not None and any(self._text):
            self.signatures.note("text", "".join(self._text), signature)

    def _finish(self, reason: str) -> ModelFinish:
        answered = any(self._text) or bool(self._calls)
        detail = f": {self._finish_message}" if self._finish_message else ""
        if reason == "STOP":
            return ModelFinish(FinishReason.TOOL_CALLS if self._calls else FinishReason.STOP)
        if reason == "MAX_TOKENS":
            return ModelFinish(FinishReason.LENGTH)
        if reason in FILTERED:
            if not answered:
                raise ModelError(ModelFailureKind.REFUSED, f"the answer was blocked ({reason}){detail}")
            return ModelFinish(FinishReason.CONTENT_FILTER, reason)
        if reason in MALFORMED:
            raise ModelError(ModelFailureKind.OTHER, f"the model's function call could not be used ({reason}){detail}")
        return ModelFinish(FinishReason.OTHER, reason)
